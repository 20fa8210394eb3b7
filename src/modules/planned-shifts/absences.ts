import type { Tx } from '../../platform/db/database.js';
import type { RuleShift } from './exception-rules.js';

/**
 * The shifts of `shifts` that an approved absence or a holiday covers: no `no_show` is raised for
 * them (issue 33). Absences (issue 31) and holidays do not exist yet, so none is covered today; this
 * is the one function that reads them once they land (one statement for the run's shifts of the
 * company: approved absences of those employees overlapping the shifts' days, and the workplace's
 * holidays on those days). Nothing else of the job changes.
 */
export async function excusedShiftIds(
  _tx: Tx,
  _companyId: string,
  _shifts: readonly RuleShift[],
): Promise<ReadonlySet<string>> {
  return new Set<string>();
}
