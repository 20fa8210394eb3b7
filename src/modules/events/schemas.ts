import { Type } from '@sinclair/typebox';
import { DateTimeString, Guid, LimitQuery, NullableOut, StringEnum } from '../../http/schemas/common.js';

/* The change feed (GET /changes). */

export const ChangesQuerySchema = Type.Object(
  {
    cursor: Type.Optional(
      Type.String({ maxLength: 1024, description: 'nextCursor or resumeCursor of an earlier page' }),
    ),
    limit: Type.Optional(LimitQuery),
    types: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'comma-separated event types, e.g. `time_entry.completed,time_entry.approved`',
      }),
    ),
    start: Type.Optional(
      StringEnum(['oldest', 'now'], {
        description:
          'without a cursor: `oldest` (default) begins at the oldest retained event, `now` at the head (only newer events)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ChangeEventSchema = Type.Object({
  id: Guid,
  type: Type.String({
    description:
      'An open list: `time_entry.opened`, `time_entry.completed`, `time_entry.approved`, `time_entry.rejected`, ' +
      '`day.confirmed`, `employee.created`, `employee.updated`, `employee.deleted`, `time_entry.break_started`, `time_entry.break_ended`, ' +
      '`time_entry.updated`, `time_entry.deleted`, `time_entry.reopened`, `period.closed`, `period.reopened`, ' +
      '`attendance.exception_detected`, `attendance.exception_resolved`, ' +
      '`absence.requested`, `absence.approved`, `absence.rejected`, `absence.cancelled`, ' +
      '`correction.requested`, `correction.approved`, `correction.rejected`, `correction.withdrawn`; later versions add types, ignore unknown ones.',
  }),
  occurredAt: DateTimeString,
  data: Type.Unknown({
    description:
      'The public API’s own shape of what changed: a time entry list item (`time_entry.*`), an employee list item ' +
      '(`employee.created`, `employee.updated`), an EmployeeRef (`employee.deleted`), `{employee: EmployeeRef, date}` (`day.confirmed`), ' +
      '`{id, employee: EmployeeRef, workDate}` (`time_entry.deleted`), a LockedPeriod (`period.*`), an attendance exception (`attendance.*`), an absence (`absence.*`), a CorrectionRequest (`correction.*`).',
  }),
});

export const ChangesPageSchema = Type.Object({
  items: Type.Array(ChangeEventSchema),
  nextCursor: NullableOut(Type.String()),
  hasMore: Type.Boolean(),
  resumeCursor: Type.String({
    description:
      'always present: keep it, and ask with it later to receive only newer events, never one twice',
  }),
});
