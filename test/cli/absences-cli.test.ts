/**
 * Issue 31's commands as an operator's script runs them: the built CLI (`node dist/cli/main.js … --json`)
 * in a child process, on every dialect, each with exactly the name and flags of the issue. Run after
 * `npm run build`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, testDialects } from '../support/databases.js';
import { runCli } from '../support/processes.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed CLI output is checked field by field
type Json = any;

describe.each(testDialects().map((d) => [d.name, d] as const))('absence commands on %s', (_name, dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await dialect.create();
  });
  afterAll(async () => database.drop());

  async function json(...args: string[]): Promise<Json> {
    const result = await runCli(database.url, ...args, '--json');
    if (result.code !== 0) throw new Error(`punchclock ${args.join(' ')}: ${result.stderr}`);
    expect(result.stdout).toMatch(/^[^\n]+\n$/);
    return JSON.parse(result.stdout);
  }

  async function fails(pattern: RegExp, ...args: string[]): Promise<void> {
    const result = await runCli(database.url, ...args, '--json');
    expect(result.code, `punchclock ${args.join(' ')}`).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^error: [^\n]+\n$/);
    expect(result.stderr).toMatch(pattern);
  }

  it('sets up working days and holidays, types and entitlements, and runs absences through their decisions', async () => {
    const company = await json('company', 'create', '--name', 'Leave Ltd', '--time-zone', 'Europe/Berlin');
    const workplace = await json('workplace', 'create', '--company', company.id, '--name', 'Munich');
    const schedule = await json(
      'schedule',
      'create',
      '--company',
      company.id,
      '--name',
      'Part',
      '--weekly-hours',
      '32',
    );
    expect(await json('workplace', 'update', workplace.id, '--holiday-region', 'DE-BY')).toMatchObject({
      holidayRegion: 'DE-BY',
    });
    await fails(/unknown holiday region/, 'workplace', 'update', workplace.id, '--holiday-region', 'XX-YY');
    expect(
      await json('schedule', 'update', schedule.id, '--work-days', 'mon,tue,wed,thu', '--daily-hours', '8'),
    ).toMatchObject({
      workDays: ['monday', 'tuesday', 'wednesday', 'thursday'],
      dailyHours: 8,
    });
    await fails(/weekdays/, 'schedule', 'update', schedule.id, '--work-days', 'mon,funday');
    const employee = await json(
      'employee',
      'create',
      '--company',
      company.id,
      '--email',
      'ada@leave.example',
      '--workplace',
      workplace.id,
      '--schedule',
      schedule.id,
      '--schedule-from',
      '2026-01-01',
      '--hired-on',
      '2026-07-01',
    );
    expect(employee).toMatchObject({ hiredOn: '2026-07-01', leftOn: null });
    expect(
      await json('employee', 'update', employee.id, '--hired-on', 'none', '--left-on', '2027-06-30'),
    ).toMatchObject({ hiredOn: null, leftOn: '2027-06-30' });
    await fails(
      /left-on must not be before hired-on/,
      'employee',
      'update',
      employee.id,
      '--hired-on',
      '2027-07-01',
    );

    const types = await json('absence-type', 'list', '--company', company.id);
    expect(types.items.map((t: Json) => t.code)).toEqual(['sick', 'unpaid', 'vacation']);
    const vacation = types.items.find((t: Json) => t.code === 'vacation');
    expect(
      await json(
        'absence-type',
        'update',
        vacation.id,
        '--yearly-days',
        '20',
        '--carry-over-max',
        '5',
        '--carry-over-expires',
        '03-31',
        '--allow-negative',
        'off',
        '--requires-approval',
        'on',
      ),
    ).toMatchObject({ yearlyEntitlementDays: 20, carryOverMaxDays: 5, carryOverExpiresOn: '03-31' });
    const parental = await json(
      'absence-type',
      'create',
      '--company',
      company.id,
      '--code',
      'parental',
      '--name',
      'Parental leave',
      '--category',
      'other',
      '--unit',
      'days',
      '--paid',
      'off',
      '--counts-as-work',
      'off',
      '--requires-approval',
      'on',
      '--deducts',
      'off',
      '--yearly-days',
      '0',
    );
    expect(parental).toMatchObject({
      code: 'parental',
      paid: false,
      countsAsWorkTime: false,
      deductsFromBalance: false,
    });
    await fails(
      /already has an absence type parental/,
      'absence-type',
      'create',
      '--company',
      company.id,
      '--code',
      'parental',
      '--name',
      'X',
      '--category',
      'other',
    );
    expect(
      await json(
        'leave',
        'entitlement',
        'set',
        '--employee',
        employee.id,
        '--type',
        'vacation',
        '--year',
        '2026',
        '--days',
        '12',
      ),
    ).toMatchObject({ year: 2026, days: 12 });

    const eve = await json(
      'holiday',
      'add',
      '--company',
      company.id,
      '--date',
      '2026-12-24',
      '--name',
      'Christmas Eve',
      '--portion',
      'half',
    );
    expect(eve).toMatchObject({ kind: 'add', portion: 'half', workplaceId: null });
    expect(
      await json(
        'holiday',
        'remove',
        '--company',
        company.id,
        '--date',
        '2026-01-06',
        '--workplace',
        workplace.id,
      ),
    ).toMatchObject({ kind: 'remove', workplaceId: workplace.id });
    const holidays = await json(
      'holiday',
      'list',
      '--workplace',
      workplace.id,
      '--from',
      '2026-01-01',
      '--to',
      '2026-12-31',
    );
    expect(holidays.items.map((h: Json) => h.date)).toContain('2026-06-04');
    expect(holidays.items.map((h: Json) => h.date)).not.toContain('2026-01-06');
    expect(holidays.items.find((h: Json) => h.date === '2026-12-24')).toMatchObject({
      date: '2026-12-24',
      portion: 'half',
      source: 'company',
    });

    // Monday to Thursday work; Thursday 24 December is half a holiday: 3.5 days.
    const requested = await json(
      'absence',
      'create',
      '--employee',
      employee.id,
      '--type',
      'vacation',
      '--from',
      '2026-12-21',
      '--to',
      '2026-12-27',
      '--note',
      'Winter',
    );
    expect(requested).toMatchObject({ status: 'requested', days: 3.5, note: 'Winter', balanceAfter: 8.5 });
    expect(await json('absence', 'approve', requested.id)).toMatchObject({
      status: 'approved',
      decidedBy: { kind: 'cli', id: null, name: 'command line' },
    });
    expect(await json('absence', 'cancel', requested.id, '--reason', 'Moved')).toMatchObject({
      status: 'cancelled',
      reason: 'Moved',
    });
    const half = await json(
      'absence',
      'create',
      '--employee',
      employee.id,
      '--type',
      'vacation',
      '--from',
      '2026-12-28',
      '--to',
      '2026-12-28',
      '--portion',
      'first_half',
    );
    expect(await json('absence', 'reject', half.id, '--reason', 'Busy')).toMatchObject({
      status: 'rejected',
    });
    const sick = await json(
      'absence',
      'create',
      '--employee',
      employee.id,
      '--type',
      'sick',
      '--from',
      '2026-12-29',
      '--to',
      '2026-12-29',
      '--portion',
      'hours',
      '--hours',
      '2',
    );
    expect(sick).toMatchObject({ status: 'approved', hours: 2, days: 0.25 });
    const listed = await json(
      'absence',
      'list',
      '--employee',
      employee.id,
      '--from',
      '2026-01-01',
      '--to',
      '2026-12-31',
    );
    expect(listed.items.map((a: Json) => a.status)).toEqual(['cancelled', 'rejected', 'approved']);

    await fails(/invalid_status_transition|cannot be approved/, 'absence', 'approve', requested.id);
    await fails(
      /startDate and endDate must be the same/,
      'absence',
      'create',
      '--employee',
      employee.id,
      '--type',
      'vacation',
      '--from',
      '2026-12-28',
      '--to',
      '2026-12-29',
      '--portion',
      'second_half',
    );
    await fails(
      /holds no working day/,
      'absence',
      'create',
      '--employee',
      employee.id,
      '--type',
      'vacation',
      '--from',
      '2026-12-25',
      '--to',
      '2026-12-27',
    );
    await fails(
      /overlaps absence/,
      'absence',
      'create',
      '--employee',
      employee.id,
      '--type',
      'vacation',
      '--from',
      '2026-12-29',
      '--to',
      '2026-12-29',
    );
    await fails(/required option '--reason/, 'absence', 'reject', sick.id);
    await fails(/unknown absence/, 'absence', 'approve', '01a1f000-0000-7000-8000-000000000000');
  }, 400_000);
});
