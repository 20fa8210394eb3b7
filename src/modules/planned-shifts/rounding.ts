/*
 * The rounding policy of reports (issue 33; docs/timesheets.md, "Rounding"). Raw punches never change:
 * a report rounds each counted entry's start and end on the grid of `minutes` (counted from the
 * midnight of the entry's own wall clock) and moves its worked time by as much as its span moved.
 * - `nearest`: each end to the nearest grid line (a half rounds up): neutral on average;
 * - `up`: the worked span grows to the grid (start earlier, end later);
 * - `down`: the worked span shrinks to the grid (start later, end earlier).
 * Breaks and the working-time rule checks always use the raw times.
 */

export const ROUNDING_MODES = ['none', 'nearest', 'up', 'down'] as const;
export type RoundingMode = (typeof ROUNDING_MODES)[number];

export interface RoundingPolicy {
  mode: RoundingMode;
  minutes: number;
}

function secondsOfDay(time: string): number {
  const [h, m, s] = time.split(':').map(Number);
  return h! * 3600 + m! * 60 + s!;
}

/** How far (seconds) the grid moves a wall-clock time: `direction` -1 down, 1 up, 0 nearest. */
function shift(time: string, gridSeconds: number, direction: -1 | 0 | 1): number {
  const seconds = secondsOfDay(time);
  const below = Math.floor(seconds / gridSeconds) * gridSeconds;
  if (below === seconds) return 0;
  const above = below + gridSeconds;
  if (direction === -1) return below - seconds;
  if (direction === 1) return above - seconds;
  return seconds - below < above - seconds ? below - seconds : above - seconds;
}

/**
 * The worked seconds a report shows for an entry of `netSeconds` that ran from `startTime` to
 * `endTime` (its wall clocks): unchanged under `none`, never below zero.
 */
export function roundedWorkedSeconds(
  policy: RoundingPolicy,
  entry: { netSeconds: number; startTime: string; endTime: string },
): number {
  if (policy.mode === 'none') return entry.netSeconds;
  const grid = policy.minutes * 60;
  const startMove = shift(
    entry.startTime,
    grid,
    policy.mode === 'nearest' ? 0 : policy.mode === 'up' ? -1 : 1,
  );
  const endMove = shift(entry.endTime, grid, policy.mode === 'nearest' ? 0 : policy.mode === 'up' ? 1 : -1);
  return Math.max(0, entry.netSeconds + endMove - startMove);
}
