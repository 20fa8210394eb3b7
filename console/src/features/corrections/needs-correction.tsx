import { StatusBadge } from '../../components/ui.js';
import { mondayOf } from '../../format.js';
import { hrefOf } from '../../router.js';
import { dayIn } from './zoned.js';

/*
 * The Now screen's mark on a session no punch can close any more (open 24 hours or more, issue 30):
 * the words, and a link to the employee's week on the Time entries screen, where a manager closes it.
 */
export function NeedsCorrection(props: { employeeId: string; name: string; since: string; zone: string }) {
  const week = mondayOf(dayIn(props.since, props.zone));
  return (
    <>
      {' '}
      <span class="badge-wrap">
        <StatusBadge status="needs_correction" />
      </span>{' '}
      <a href={hrefOf(['time-entries'], { employee: props.employeeId, week })}>
        Correct it<span class="visually-hidden">: the open session of {props.name}, in Time entries</span>
      </a>
    </>
  );
}

/** "2 need a correction." for the Now screen's summary; empty when none does. */
export function needsCorrectionText(sessions: { needsCorrection?: boolean }[]): string {
  const count = sessions.filter((s) => s.needsCorrection).length;
  if (count === 0) return '';
  return count === 1 ? ' 1 session needs a correction.' : ` ${count} sessions need a correction.`;
}
