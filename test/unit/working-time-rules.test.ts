import { describe, expect, it } from 'vitest';
import {
  deArbzgBreak,
  deArbzgMaxDaily,
  deArbzgRest,
  evaluateRules,
  type RuleDay,
  usCaDailyOvertime,
  usCaDoubleTime,
  usCaMeal,
  type WorkPeriod,
} from '../../src/domain/timesheets/rules.js';

const DATE = '2026-11-10';
const at = (time: string, date = DATE) => Date.parse(`${date}T${time}:00Z`);

/** A period from `start` to `end` (UTC wall clock of DATE) with `breakMinutes` inside it. */
function period(start: string, end: string, breakMinutes = 0): WorkPeriod {
  const startMs = at(start);
  const endMs = at(end);
  return { startMs, endMs, netSeconds: (endMs - startMs) / 1000 - breakMinutes * 60, breakMinutes };
}

const day = (periods: WorkPeriod[], previousWorkEndMs: number | null = null): RuleDay => ({
  date: DATE,
  periods,
  previousWorkEndMs,
});

describe('de-arbzg (Arbeitszeitgesetz)', () => {
  // §4: "Die Arbeit ist durch im Voraus feststehende Ruhepausen von mindestens 30 Minuten bei einer
  // Arbeitszeit von mehr als sechs bis zu neun Stunden und 45 Minuten bei einer Arbeitszeit von
  // insgesamt mehr als neun Stunden zu unterbrechen. Die Ruhepausen … können in Zeitabschnitte von
  // jeweils mindestens 15 Minuten aufgeteilt werden."
  it('§4: six hours need no break; more than six need 30 minutes', () => {
    expect(deArbzgBreak(day([period('08:00', '14:00')]))).toEqual([]);
    const flags = deArbzgBreak(day([period('08:00', '14:01')]));
    expect(flags).toEqual([
      {
        rule: 'de-arbzg.break',
        date: DATE,
        message: '6.02 h worked with 0 min of breaks; at least 30 min are required beyond 6 h (ArbZG §4)',
      },
    ]);
    expect(deArbzgBreak(day([period('08:00', '16:30', 30)]))).toEqual([]); // 8 h + 30 min break
  });

  it('§4: more than nine hours need 45 minutes; 30 are not enough', () => {
    expect(deArbzgBreak(day([period('07:00', '16:30', 30)]))).toEqual([]); // exactly 9 h
    const flags = deArbzgBreak(day([period('07:00', '17:00', 30)])); // 9.5 h with 30 min
    expect(flags[0]!.message).toBe(
      '9.50 h worked with 30 min of breaks; at least 45 min are required beyond 9 h (ArbZG §4)',
    );
    expect(deArbzgBreak(day([period('07:00', '17:15', 45)]))).toEqual([]);
  });

  it('§4: a break split into parts of at least 15 minutes counts; a 10-minute gap does not', () => {
    // 07:00-10:00, 15 min, 10:15-13:00, 15 min, 13:15-15:00: 7.5 h work, two 15-min parts = 30 min.
    const split = day([period('07:00', '10:00'), period('10:15', '13:00'), period('13:15', '15:00')]);
    expect(deArbzgBreak(split)).toEqual([]);
    // 07:00-10:00, 10 min, 10:10-13:00, 20 min, 13:20-15:10: only the 20-min part counts.
    const short = day([period('07:00', '10:00'), period('10:10', '13:00'), period('13:20', '15:10')]);
    expect(deArbzgBreak(short)[0]!.message).toMatch(/^7\.67 h worked with 20 min of breaks; at least 30 min/);
  });

  // §3: "Die werktägliche Arbeitszeit der Arbeitnehmer darf acht Stunden nicht überschreiten. Sie kann
  // auf bis zu zehn Stunden nur verlängert werden, wenn …"
  it('§3: at most ten hours a day', () => {
    expect(deArbzgMaxDaily(day([period('07:00', '17:45', 45)]))).toEqual([]);
    expect(deArbzgMaxDaily(day([period('07:00', '18:15', 45)]))).toEqual([
      {
        rule: 'de-arbzg.max-daily',
        date: DATE,
        message: '10.50 h worked, 0.50 h more than the 10 h allowed a day (ArbZG §3)',
      },
    ]);
  });

  // §5: "Die Arbeitnehmer müssen nach Beendigung der täglichen Arbeitszeit eine ununterbrochene
  // Ruhezeit von mindestens elf Stunden haben."
  it('§5: eleven hours of rest after the previous working day; dated on the day that starts too early', () => {
    const previous = at('22:00', '2026-11-09');
    expect(deArbzgRest(day([period('09:00', '17:00', 30)], previous))).toEqual([]); // exactly 11 h
    expect(deArbzgRest(day([period('06:00', '14:00', 30)], previous))).toEqual([
      {
        rule: 'de-arbzg.rest',
        date: DATE,
        message:
          '8.00 h of rest since the previous work ended at 2026-11-09T22:00:00.000Z; at least 11 h are required (ArbZG §5)',
      },
    ]);
    expect(deArbzgRest(day([period('06:00', '14:00', 30)], null))).toEqual([]);
  });
});

describe('us-ca (California Labor Code)', () => {
  // §510(a): "Any work in excess of eight hours in one workday … shall be compensated at the rate of no
  // less than one and one-half times the regular rate of pay … Any work in excess of 12 hours in one day
  // shall be compensated at the rate of no less than twice the regular rate of pay."
  // The DLSE's example: 14 hours in a workday are 8 regular, 4 at time and a half, 2 at double time.
  it('§510: 14 hours are 8 regular, 4 at 1.5 and 2 at double time', () => {
    const fourteen = day([period('06:00', '20:30', 30)]);
    expect(usCaDailyOvertime(fourteen)).toEqual([
      {
        rule: 'us-ca.daily-overtime',
        date: DATE,
        message:
          '14.00 h worked: 4.00 h beyond 8 h are daily overtime at 1.5 times the regular rate (Labor Code §510)',
      },
    ]);
    expect(usCaDoubleTime(fourteen)).toEqual([
      {
        rule: 'us-ca.double-time',
        date: DATE,
        message: '14.00 h worked: 2.00 h beyond 12 h are double time (Labor Code §510)',
      },
    ]);
    expect(usCaDailyOvertime(day([period('08:00', '16:30', 30)]))).toEqual([]); // 8 h
    expect(usCaDoubleTime(day([period('06:00', '18:30', 30)]))).toEqual([]); // 12 h
  });

  // §512(a): "An employer shall not employ an employee for a work period of more than five hours per day
  // without providing the employee with a meal period of not less than 30 minutes …"; the DLSE reads it
  // as a meal period beginning no later than the end of the fifth hour of work.
  it('§512: a day of more than five hours needs a 30-minute meal beginning by the end of the fifth hour', () => {
    expect(usCaMeal(day([period('08:00', '13:00')]))).toEqual([]); // 5 h: none needed
    // 8:00-12:00 work, 12:00-12:30 meal, 12:30-16:30: meal after 4 h.
    expect(usCaMeal(day([period('08:00', '12:00'), period('12:30', '16:30')]))).toEqual([]);
    // Meal after 5.5 h of work: too late.
    const late = usCaMeal(day([period('08:00', '13:30'), period('14:00', '16:30')]));
    expect(late).toEqual([
      {
        rule: 'us-ca.meal',
        date: DATE,
        message:
          '8.00 h worked without a meal period of 30 min starting by the end of the fifth hour (the first began after 5.50 h of work) (Labor Code §512)',
      },
    ]);
    // A recorded 30-minute break sits in the middle of its shift: 8.5 h shift → after 4 h of work.
    expect(usCaMeal(day([period('08:00', '16:30', 30)]))).toEqual([]);
    // 11 h of work with a 30-minute break in the middle: after 5.5 h.
    expect(usCaMeal(day([period('07:00', '18:30', 30)]))[0]!.message).toMatch(/first began after 5\.50 h/);
    // A 20-minute break is no meal period.
    expect(usCaMeal(day([period('08:00', '14:20', 20)]))[0]!.message).toMatch(/none of 30 min was taken/);
  });
});

describe('rule packs', () => {
  it('none raises nothing; each pack raises only its own rules', () => {
    const long = day([period('05:00', '19:00')], at('22:00', '2026-11-09'));
    expect(evaluateRules('none', long)).toEqual([]);
    expect(evaluateRules('de-arbzg', long).map((f) => f.rule)).toEqual([
      'de-arbzg.break',
      'de-arbzg.max-daily',
      'de-arbzg.rest',
    ]);
    expect(evaluateRules('us-ca', long).map((f) => f.rule)).toEqual([
      'us-ca.daily-overtime',
      'us-ca.double-time',
      'us-ca.meal',
    ]);
    expect(evaluateRules('de-arbzg', day([]))).toEqual([]);
  });
});
