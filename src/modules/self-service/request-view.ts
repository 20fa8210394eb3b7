import type { CorrectionRequestWithEmployee } from './queries.js';
import type { CorrectionRequestStatus, CorrectionRequestView } from './schemas.js';

/** A correction request as the API shows it (issue 35). */
export function requestView(row: CorrectionRequestWithEmployee): CorrectionRequestView {
  return {
    id: row.id,
    employee: { id: row.employee_id, externalId: row.employee_external_id },
    timeEntryId: row.time_entry_id,
    date: row.date,
    proposed: {
      clockIn: row.proposed_clock_in,
      clockOut: row.proposed_clock_out,
      breakMinutes: row.proposed_break_minutes,
    },
    reason: row.reason,
    status: row.status as CorrectionRequestStatus,
    decidedBy:
      row.decided_by_kind === null
        ? null
        : {
            kind: row.decided_by_kind as 'person',
            id: row.decided_by_id,
            name: row.decided_by_name,
          },
    decidedAt: row.decided_at,
    decisionReason: row.decision_reason,
    createdAt: row.created_at,
  };
}
