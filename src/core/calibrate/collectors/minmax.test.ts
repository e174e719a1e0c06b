import { describe, expect, it } from 'vitest';
import { batchExtremes, MinMaxCollector, NonOverflowCollector, sharingBatchExtremes } from './minmax.ts';
import { CollectorMismatchError } from './types.ts';
import { randomPartition, unevenBatches } from '../testData.ts';

const f32 = (xs: number[]) => Float32Array.from(xs);

function fold(batches: Float32Array[], options = {}) {
  return batches.reduce((s, b) => MinMaxCollector.update(s, b), MinMaxCollector.create(options));
}

describe('MinMax (ORT MinMaxCalibrater)', () => {
  // Two runs: [1, −2, 3] (min −2, max 3) and [0.5, 4] (min 0.5, max 4).
  const runs = [f32([1, -2, 3]), f32([0.5, 4])];

  it('takes the global extremes', () => {
    expect(MinMaxCollector.finalize(fold(runs))).toEqual({ min: -2, max: 4 });
  });

  it('symmetric: [−a, a] with a = max(|−2|, |4|) = 4', () => {
    expect(MinMaxCollector.finalize(fold(runs, { symmetric: true }))).toEqual({ min: -4, max: 4 });
  });

  it('moving average: the mean of per-run minima and maxima, as np.nanmean in compute_data', () => {
    // min (−2 + 0.5) / 2 = −0.75, max (3 + 4) / 2 = 3.5.
    expect(MinMaxCollector.finalize(fold(runs, { movingAverage: true }))).toEqual({ min: -0.75, max: 3.5 });
    // symmetric after averaging: a = max(0.75, 3.5).
    expect(MinMaxCollector.finalize(fold(runs, { movingAverage: true, symmetric: true }))).toEqual({
      min: -3.5,
      max: 3.5,
    });
  });

  it('ignores NaN and ±Infinity, and a run with nothing finite is not a run', () => {
    const s = fold([f32([NaN, 1, -Infinity]), f32([NaN, NaN]), f32([3])], { movingAverage: true });
    expect([s.batches, s.count, s.nonFinite]).toEqual([2, 2, 4]);
    expect(MinMaxCollector.finalize(s)).toEqual({ min: 2, max: 2 });
  });

  it('returns [0, 0] before any finite value (ORT collects 0 for empty arrays)', () => {
    expect(MinMaxCollector.finalize(MinMaxCollector.create())).toEqual({ min: 0, max: 0 });
  });

  it('defaults follow ORT: asymmetric, no moving average', () => {
    expect(MinMaxCollector.defaults).toEqual({ symmetric: false, movingAverage: false });
  });
});

describe('NonOverflow (Quark PowerOfTwoMethod.NonOverflow)', () => {
  it('is MinMax with symmetric ranges by default', () => {
    const s = NonOverflowCollector.update(NonOverflowCollector.create(), f32([-1, 3]));
    expect(s.method).toBe('NonOverflow');
    expect(NonOverflowCollector.finalize(s)).toEqual({ min: -3, max: 3 });
  });
});

describe('MinMax merging', () => {
  const batches = unevenBatches(20, 500, 21);

  for (const movingAverage of [false, true]) {
    it(`merge(fold(A), fold(B)) is exactly fold(A ∪ B), any grouping (movingAverage: ${movingAverage})`, () => {
      const whole = fold(batches, { movingAverage });
      for (let seed = 1; seed <= 8; seed++) {
        const groups = randomPartition(batches, 2 + (seed % 3), seed);
        const merged = groups.map((g) => fold(g, { movingAverage })).reduce((a, b) => MinMaxCollector.merge(a, b));
        expect(merged).toEqual(whole);
        expect(MinMaxCollector.finalize(merged)).toEqual(MinMaxCollector.finalize(whole));
      }
    });
  }

  it('refuses states with different options or methods', () => {
    expect(() => MinMaxCollector.merge(MinMaxCollector.create(), MinMaxCollector.create({ symmetric: true }))).toThrow(
      CollectorMismatchError,
    );
    expect(() =>
      MinMaxCollector.merge(MinMaxCollector.create(), NonOverflowCollector.create({ symmetric: false })),
    ).toThrow(CollectorMismatchError);
  });
});

describe('batch extremes shared within one run', () => {
  it('an array is scanned once inside sharingBatchExtremes, again outside it; the figures are the same', () => {
    const values = Float32Array.of(-2, 0.5, NaN, 7);
    const inside = sharingBatchExtremes(() => [batchExtremes(values), batchExtremes(values)]);
    expect(inside[1]).toBe(inside[0]);
    expect(inside[0]).toEqual({ min: -2, max: 7, count: 4, nonFinite: 1 });
    const outside = batchExtremes(values);
    expect(outside).not.toBe(inside[0]);
    expect(outside).toEqual(inside[0]);
    // A second run shares nothing with the first.
    expect(sharingBatchExtremes(() => batchExtremes(values))).not.toBe(inside[0]);
  });
});
