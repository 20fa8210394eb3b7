import { DataTable } from '../../components/table.js';
import { formatDay } from '../../format.js';
import { personName } from '../../names.js';
import { hours, type Timesheet } from './model.js';

/** One row per employee: the days with time, the totals and what the working-time rules flag. */
export function TimesheetTable(props: { sheets: Timesheet[]; from: string; to: string }) {
  return (
    <DataTable
      caption={
        <>
          Timesheets from {formatDay(props.from)} to {formatDay(props.to)}
        </>
      }
      columns={['Employee', 'Days', 'Worked', 'Regular', 'Overtime', 'Working-time flags']}
    >
      {props.sheets.map((sheet) => (
        <SheetRow key={sheet.employee.id} sheet={sheet} />
      ))}
    </DataTable>
  );
}

function SheetRow({ sheet }: { sheet: Timesheet }) {
  const flags = sheet.days.flatMap((d) => d.flags);
  const open = sheet.totals.openSessions;
  return (
    <tr>
      <th scope="row" data-label="Employee">
        {personName(sheet.employee)}
        {sheet.employee.externalId ? <span class="sub"> badge {sheet.employee.externalId}</span> : null}
      </th>
      <td data-label="Days">
        {sheet.days.length === 0 ? (
          'No time recorded'
        ) : (
          <ul class="plain-list">
            {sheet.days.map((day) => (
              <li key={day.date}>
                {formatDay(day.date)}: {hours(day.workedHours)} h
                {day.overtimeHours > 0 ? ` (${hours(day.overtimeHours)} overtime)` : ''}
                {day.statuses.pending_approval ? ', pending' : ''}
              </li>
            ))}
          </ul>
        )}
        {open > 0 ? (
          <p class="sub">
            {open} open {open === 1 ? 'session' : 'sessions'} (not counted)
          </p>
        ) : null}
      </td>
      <td data-label="Worked">{hours(sheet.totals.workedHours)} h</td>
      <td data-label="Regular">{hours(sheet.totals.regularHours)} h</td>
      <td data-label="Overtime">{hours(sheet.totals.overtimeHours)} h</td>
      <td data-label="Working-time flags">
        {flags.length === 0 ? (
          'None'
        ) : (
          <ul class="plain-list flag-list">
            {flags.map((flag) => (
              <li key={`${flag.rule}-${flag.date}`}>
                <span aria-hidden="true">⚠ </span>
                <strong>{flag.rule}</strong> ({formatDay(flag.date)}): {flag.message}
              </li>
            ))}
          </ul>
        )}
      </td>
    </tr>
  );
}
