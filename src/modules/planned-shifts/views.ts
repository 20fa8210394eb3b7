import { localizeInstant, parseInstantWithOffset } from '../../domain/time-zone.js';
import type { AttendanceExceptionRow, PlannedShiftRow } from '../../platform/db/schema.js';
import type { ExceptionKind, ShiftStatus } from './schemas.js';

/** An instant stored as UTC ISO, shown with the offset of `zone` (RFC 3339). */
export function instantIn(iso: string, zone: string): string {
  return localizeInstant(parseInstantWithOffset(iso)!, zone).occurredAt;
}

/** The public shape of a planned shift (PlannedShiftSchema). */
export function shiftView(row: PlannedShiftRow, employee: { id: string; external_id: string | null }) {
  return {
    id: row.id,
    externalId: row.external_id,
    employee: { id: employee.id, externalId: employee.external_id },
    workplaceId: row.workplace_id,
    date: row.date,
    start: instantIn(row.start_at, row.time_zone),
    end: instantIn(row.end_at, row.time_zone),
    breakMinutes: Number(row.break_minutes),
    note: row.note,
    status: row.status as ShiftStatus,
    version: Number(row.version),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type ShiftView = ReturnType<typeof shiftView>;

/** The public shape of an attendance exception (AttendanceExceptionSchema), also the events' data. */
export function exceptionView(
  row: Pick<
    AttendanceExceptionRow,
    'id' | 'kind' | 'planned_shift_id' | 'time_entry_id' | 'date' | 'minutes' | 'detected_at' | 'resolved_at'
  >,
  employee: { id: string; external_id: string | null },
) {
  return {
    id: row.id,
    kind: row.kind as ExceptionKind,
    employee: { id: employee.id, externalId: employee.external_id },
    plannedShiftId: row.planned_shift_id,
    timeEntryId: row.time_entry_id,
    date: row.date,
    minutes: Number(row.minutes),
    detectedAt: row.detected_at,
    resolvedAt: row.resolved_at,
  };
}

export type ExceptionView = ReturnType<typeof exceptionView>;
