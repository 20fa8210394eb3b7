import { DataTable } from '../../components/table.js';
import { formatDay } from '../../format.js';
import {
  EXCEPTION_LABELS,
  nameOf,
  type RosterEmployee,
  type RosterException,
  type RosterShift,
  timesOf,
} from './model.js';

/**
 * The roster as a table: employees by days, each shift a button with its times (Enter opens it to
 * change or delete it; Alt+Left / Alt+Right move it a day), and in each cell a button to plan
 * another. At phone width the parent passes a single day.
 */
export function RosterGrid(props: {
  days: string[];
  employees: RosterEmployee[];
  shifts: RosterShift[];
  exceptions: RosterException[];
  canEdit: boolean;
  onAdd: (employeeId: string, date: string) => void;
  onEdit: (shift: RosterShift) => void;
  onMove: (shift: RosterShift, days: number) => void;
}) {
  const cell = (employeeId: string, date: string) =>
    props.shifts.filter((s) => s.employee.id === employeeId && s.date === date);
  return (
    // Focusable, so that a keyboard can scroll it when the week is wider than the screen.
    <div class="table-wrap roster-wrap" tabIndex={0} role="region" aria-label="Shifts by employee and day">
      <table class="data-table roster-table">
        <caption class="visually-hidden">
          Shifts by employee and day
          {props.canEdit ? '; Alt+Left and Alt+Right move a focused shift by a day' : ''}
        </caption>
        <thead>
          <tr>
            <th scope="col">Employee</th>
            {props.days.map((day) => (
              <th scope="col" key={day}>
                {formatDay(day).replace(/ \d{4}$/, '')}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.employees.map((employee) => (
            <tr key={employee.id}>
              <th scope="row" data-label="Employee">
                {nameOf(employee)}
              </th>
              {props.days.map((day) => (
                <td key={day} data-label={props.days.length === 1 ? 'Shifts' : formatDay(day)}>
                  {cell(employee.id, day).map((shift) => (
                    <ShiftBlock key={shift.id} shift={shift} who={nameOf(employee)} {...props} />
                  ))}
                  {props.canEdit ? (
                    <button type="button" class="add-shift" onClick={() => props.onAdd(employee.id, day)}>
                      <span aria-hidden="true">+ </span>Add
                      <span class="visually-hidden">
                        {' '}
                        a shift for {nameOf(employee)} on {formatDay(day)}
                      </span>
                    </button>
                  ) : null}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ShiftBlock(props: {
  shift: RosterShift;
  who: string;
  exceptions: RosterException[];
  canEdit: boolean;
  onEdit: (shift: RosterShift) => void;
  onMove: (shift: RosterShift, days: number) => void;
}) {
  const { shift } = props;
  const found = props.exceptions.filter((x) => x.plannedShiftId === shift.id && x.resolvedAt === null);
  const text = (
    <>
      <span class="visually-hidden">
        {props.who}, {formatDay(shift.date)}:{' '}
      </span>
      <span class="shift-times">{timesOf(shift)}</span>
      <span class={`shift-status shift-${shift.status}`}>
        {shift.status === 'published' ? 'Published' : 'Draft'}
        {shift.breakMinutes > 0 ? `, break ${shift.breakMinutes} min` : ''}
      </span>
      {found.map((x) => (
        <span key={x.id} class="shift-exception">
          <span aria-hidden="true">⚠ </span>
          {EXCEPTION_LABELS[x.kind]}
        </span>
      ))}
    </>
  );
  if (!props.canEdit) return <div class="shift-block">{text}</div>;
  return (
    <button
      type="button"
      class="shift-block"
      aria-keyshortcuts="Alt+ArrowLeft Alt+ArrowRight"
      onClick={() => props.onEdit(shift)}
      onKeyDown={(event) => {
        if (!event.altKey || (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight')) return;
        event.preventDefault();
        props.onMove(shift, event.key === 'ArrowLeft' ? -1 : 1);
      }}
    >
      {text}
    </button>
  );
}

/** The week's exceptions, by day. */
export function ExceptionList(props: { exceptions: RosterException[]; employees: RosterEmployee[] }) {
  const byId = new Map(props.employees.map((e) => [e.id, e]));
  if (props.exceptions.length === 0) return <p class="hint">No exceptions this week.</p>;
  return (
    <DataTable
      caption="Exceptions of the week, by day"
      columns={['Day', 'Employee', 'Exception', 'Minutes', 'State']}
    >
      {props.exceptions.map((x) => (
        <tr key={x.id}>
          <td data-label="Day">{formatDay(x.date)}</td>
          <th scope="row" data-label="Employee">
            {nameOf(byId.get(x.employee.id))}
          </th>
          <td data-label="Exception">{EXCEPTION_LABELS[x.kind]}</td>
          <td data-label="Minutes">{x.minutes}</td>
          <td data-label="State">{x.resolvedAt === null ? 'Open' : 'Resolved'}</td>
        </tr>
      ))}
    </DataTable>
  );
}
