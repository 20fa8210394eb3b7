import { formatDay } from '../../format.js';
import { personName } from '../../names.js';
import {
  type Absence,
  absenceWhat,
  daysOf,
  formatDays,
  type Holiday,
  isWeekend,
  monthLabel,
  type TeamCalendar,
  type TeamMember,
  typeLetter,
} from './model.js';

const WEEKDAY = new Intl.DateTimeFormat('en-GB', { weekday: 'short', timeZone: 'UTC' });
const LONG_DAY = new Intl.DateTimeFormat('en-GB', {
  weekday: 'long',
  day: 'numeric',
  month: 'long',
  timeZone: 'UTC',
});
const at = (day: string) => new Date(`${day}T12:00:00Z`);

/** A day's column header: the day and weekday shown, the whole date (and holiday) read out. */
function DayHeader(props: { day: string; holiday: Holiday | undefined }) {
  const { day, holiday } = props;
  const classes = [isWeekend(day) ? 'weekend' : '', holiday ? 'holiday' : ''].filter(Boolean).join(' ');
  return (
    <th scope="col" class={classes || undefined}>
      <span aria-hidden="true">
        {Number(day.slice(8))}
        <br />
        {WEEKDAY.format(at(day)).slice(0, 2)}
      </span>
      <span class="visually-hidden">
        {LONG_DAY.format(at(day))}
        {holiday ? `, holiday: ${holiday.name}${holiday.portion === 'half' ? ' (half day)' : ''}` : ''}
      </span>
    </th>
  );
}

/** One employee's day: the letter of each absence (? while requested), its words read out. */
function DayCell(props: { day: string; absences: Absence[]; holiday: Holiday | undefined }) {
  const { day, absences, holiday } = props;
  const classes = [
    isWeekend(day) ? 'weekend' : '',
    holiday ? 'holiday' : '',
    absences.length > 0 ? 'away' : '',
    absences.some((a) => a.status === 'requested') ? 'requested' : '',
  ].filter(Boolean);
  return (
    <td class={classes.join(' ') || undefined}>
      {absences.map((a) => (
        <span key={a.id}>
          <span aria-hidden="true">
            {typeLetter(a.type.code)}
            {a.portion === 'first_half' || a.portion === 'second_half' ? '½' : ''}
            {a.status === 'requested' ? '?' : ''}
          </span>
          <span class="visually-hidden">
            {absenceWhat(a)} ({a.status})
          </span>
        </span>
      ))}
    </td>
  );
}

function MemberRow(props: {
  member: TeamMember;
  days: string[];
  absences: Absence[];
  holidays: Map<string, Holiday>;
}) {
  const own = props.absences.filter((a) => a.employee.id === props.member.id);
  return (
    <tr>
      <th scope="row">{personName(props.member)}</th>
      {props.days.map((day) => (
        <DayCell
          key={day}
          day={day}
          holiday={props.holidays.get(day)}
          absences={own.filter((a) => a.startDate <= day && a.endDate >= day)}
        />
      ))}
    </tr>
  );
}

/** The month as a grid, one row per employee: who is away, holidays shaded, weekends dim. */
export function TeamGrid(props: { calendar: TeamCalendar; month: string }) {
  const { calendar } = props;
  const days = daysOf(calendar.from, calendar.to);
  const holidays = new Map(calendar.holidays.map((h) => [h.date, h]));
  const label = `Team calendar, ${monthLabel(props.month)}`;
  return (
    <div class="calendar-wrap" role="region" aria-label={label} tabIndex={0}>
      <table class="calendar-grid">
        <caption class="visually-hidden">{label}: one row per employee, one column per day</caption>
        <thead>
          <tr>
            <th scope="col">Employee</th>
            {days.map((day) => (
              <DayHeader key={day} day={day} holiday={holidays.get(day)} />
            ))}
          </tr>
        </thead>
        <tbody>
          {calendar.employees.map((member) => (
            <MemberRow
              key={member.id}
              member={member}
              days={days}
              absences={calendar.absences}
              holidays={holidays}
            />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What the grid says, as sentences: every absence and holiday of the month (and the key to the letters). */
export function MonthSummary(props: { calendar: TeamCalendar }) {
  const { calendar } = props;
  const codes = [...new Set(calendar.absences.map((a) => a.type.code))].sort();
  return (
    <div class="month-summary">
      <p class="hint">
        Key:{' '}
        {codes.length === 0 ? 'no absences this month' : codes.map((c) => `${typeLetter(c)} ${c}`).join(', ')}
        ; ½ a half day; ? requested, not yet decided; shaded columns are holidays, dim ones weekends.
      </p>
      <h3>Away this month</h3>
      {calendar.absences.length === 0 ? (
        <p>Nobody.</p>
      ) : (
        <ul class="plain-list">
          {calendar.absences.map((a) => (
            <li key={a.id}>
              <strong>{personName(a.person)}</strong>: {absenceWhat(a)}, {formatDay(a.startDate)}
              {a.endDate !== a.startDate ? ` – ${formatDay(a.endDate)}` : ''} ({formatDays(a.days)}{' '}
              {a.days === 1 ? 'day' : 'days'}, {a.status})
            </li>
          ))}
        </ul>
      )}
      <h3>Holidays</h3>
      {calendar.holidays.length === 0 ? (
        <p>None this month.</p>
      ) : (
        <ul class="plain-list">
          {calendar.holidays.map((h) => (
            <li key={h.date}>
              {formatDay(h.date)}: {h.name}
              {h.portion === 'half' ? ' (half day)' : ''}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
