import { describe, expect, it } from 'vitest';

// The benchmark's ratio (bench/lib/ratios.mjs): the median of interleaved floor/API pairs' ratios,
// with their min and max. A plain ES module without types: imported by path.
type Pair = { floorRps: number; apiRps: number };
type Summary = {
  ratios: (number | null)[];
  median: number | null;
  min: number | null;
  max: number | null;
  count: number;
  medianPair: number | null;
};
const ratiosPath = '../../bench/lib/ratios.mjs';
const { apiRunsFirst, describeRatio, formatRatioRange, median, MIN_PAIRS, summarizePairs } = (await import(
  ratiosPath
)) as {
  apiRunsFirst(index: number): boolean;
  describeRatio(summary: Pick<Summary, 'median' | 'min' | 'max' | 'count'>): string;
  formatRatioRange(summary: { median: number | null; min?: number | null; max?: number | null }): string;
  median(values: number[]): number | null;
  MIN_PAIRS: number;
  summarizePairs(pairs: Pair[]): Summary;
};

describe('benchmark ratios', () => {
  it('judges on the median of the pairs, not on each side’s best round', () => {
    // Best rounds would give 1,100 / 2,000 = 55%; the pairs say 50%, 45%, 60%, 40%, 55%.
    const summary = summarizePairs([
      { floorRps: 2000, apiRps: 1000 },
      { floorRps: 2000, apiRps: 900 },
      { floorRps: 1500, apiRps: 900 },
      { floorRps: 1000, apiRps: 400 },
      { floorRps: 2000, apiRps: 1100 },
    ]);
    expect(summary.ratios).toEqual([0.5, 0.45, 0.6, 0.4, 0.55]);
    expect(summary.median).toBe(0.5);
    expect(summary.min).toBe(0.4);
    expect(summary.max).toBe(0.6);
    expect(summary.count).toBe(5);
    expect(summary.medianPair).toBe(0);
  });

  it('takes the mean of the two middle ratios for an even count, and the lower middle pair as the median pair', () => {
    const summary = summarizePairs([
      { floorRps: 100, apiRps: 70 },
      { floorRps: 100, apiRps: 40 },
      { floorRps: 100, apiRps: 60 },
      { floorRps: 100, apiRps: 50 },
      { floorRps: 100, apiRps: 80 },
      { floorRps: 100, apiRps: 65 },
    ]);
    expect(summary.median).toBeCloseTo(0.625, 10);
    expect(summary.medianPair).toBe(2);
    expect(summary.min).toBeCloseTo(0.4, 10);
    expect(summary.max).toBeCloseTo(0.8, 10);
  });

  it('leaves out a pair whose floor answered nothing', () => {
    const summary = summarizePairs([
      { floorRps: 0, apiRps: 10 },
      { floorRps: 100, apiRps: 30 },
      { floorRps: 100, apiRps: 90 },
    ]);
    expect(summary.ratios).toEqual([null, 0.3, 0.9]);
    expect(summary.count).toBe(2);
    expect(summary.median).toBeCloseTo(0.6, 10);
    expect(summary.medianPair).toBe(1);
    expect(summarizePairs([{ floorRps: 0, apiRps: 0 }])).toMatchObject({ median: null, medianPair: null });
    expect(median([])).toBeNull();
  });

  it('measures at least five pairs, alternating which side goes first', () => {
    expect(MIN_PAIRS).toBeGreaterThanOrEqual(5);
    expect([0, 1, 2, 3, 4].map(apiRunsFirst)).toEqual([false, true, false, true, false]);
  });

  it('prints the median with its min and max', () => {
    const summary = summarizePairs([
      { floorRps: 1000, apiRps: 510 },
      { floorRps: 1000, apiRps: 580 },
      { floorRps: 1000, apiRps: 550 },
      { floorRps: 1000, apiRps: 560 },
      { floorRps: 1000, apiRps: 540 },
    ]);
    expect(formatRatioRange(summary)).toBe('55% (51–58%)');
    expect(describeRatio(summary)).toBe('median 55% of 5 pairs (min 51%, max 58%)');
    // Results written before the median of pairs have a ratio and no range.
    expect(formatRatioRange({ median: 0.57 })).toBe('57%');
    expect(formatRatioRange({ median: null })).toBe('—');
  });
});
