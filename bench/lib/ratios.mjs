// The benchmark's ratio, as the method settles it: max-load rounds run in interleaved floor/API
// pairs, each pair gives its own ratio (API requests/s over the floor's), and a scenario's ratio is
// the median of its pairs' ratios, shown with their min and max. Targets are judged on the median.

/** The fewest pairs a ratio is measured over. */
export const MIN_PAIRS = 5;

/**
 * Whether the API runs first in the pair of 0-based index `index`: the floor goes first in the 1st,
 * 3rd, 5th… pair, the API in the 2nd, 4th…, so that neither side always inherits what the other left
 * behind (a WAL to checkpoint, dead rows to vacuum, a cooled JIT) nor always runs first after a pause.
 */
export function apiRunsFirst(index) {
  return index % 2 === 1;
}

/** The median of `values` (the mean of the two middle ones for an even count); null for none. */
export function median(values) {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** One pair's ratio: API over floor requests/s; null when the floor answered nothing. */
export function pairRatio({ floorRps, apiRps }) {
  return floorRps > 0 ? apiRps / floorRps : null;
}

/**
 * `pairs`: `[{ floorRps, apiRps }]` in the order they ran. Returns each pair's ratio, the median, min
 * and max of the ratios (pairs without one left out), how many counted, and `medianPair`: the 0-based
 * index of the pair whose ratio is the median, or for an even count the lower of the two middle ones
 * (its rounds stand for the scenario where one round per side is shown); null when no pair counted.
 */
export function summarizePairs(pairs) {
  const ratios = pairs.map(pairRatio);
  const counted = ratios.map((ratio, index) => ({ ratio, index })).filter((r) => r.ratio !== null);
  if (counted.length === 0) return { ratios, median: null, min: null, max: null, count: 0, medianPair: null };
  const byRatio = [...counted].sort((a, b) => a.ratio - b.ratio || a.index - b.index);
  return {
    ratios,
    median: median(counted.map((r) => r.ratio)),
    min: byRatio[0].ratio,
    max: byRatio.at(-1).ratio,
    count: counted.length,
    medianPair: byRatio[Math.floor((byRatio.length - 1) / 2)].index,
  };
}

const percent = (share) => `${(share * 100).toFixed(0)}%`;

/** "55% (51–58%)": the median and, in brackets, the range of the pair ratios; "—" without a ratio. */
export function formatRatioRange({ median: middle, min, max }) {
  if (middle === null || middle === undefined) return '—';
  if (min === null || min === undefined) return percent(middle);
  return `${percent(middle)} (${(min * 100).toFixed(0)}–${percent(max)})`;
}

/** "median 55% of 5 pairs (min 51%, max 58%)". */
export function describeRatio({ median: middle, min, max, count }) {
  if (middle === null) return 'no ratio (the floor answered nothing)';
  return `median ${percent(middle)} of ${count} pair${count === 1 ? '' : 's'} (min ${percent(min)}, max ${percent(max)})`;
}
