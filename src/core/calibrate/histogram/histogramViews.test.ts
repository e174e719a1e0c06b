import { describe, expect, it } from 'vitest';
import { binWidth, createHistogram, foldIntoHistogram } from './histogram.ts';
import {
  binCenters,
  binPoints,
  centeredReference,
  histogramQuantile,
  referenceHistogram,
  spanReference,
} from './histogramViews.ts';
import { gaussian } from '../testData.ts';

const fold = (xs: number[] | Float32Array, capacity = 1024, abs = false) =>
  foldIntoHistogram(createHistogram(capacity, abs), xs instanceof Float32Array ? xs : Float32Array.from(xs));

describe('referenceHistogram (numpy.histogram layouts)', () => {
  it('matches numpy.histogram([0, 1, 2, 3, 4], 4): the last bin is closed', () => {
    // numpy: edges [0, 1, 2, 3, 4], counts [1, 1, 1, 2].
    const ref = spanReference(fold([0, 1, 2, 3, 4]), 4);
    expect(Array.from(ref.counts)).toEqual([1, 1, 1, 2]);
    expect(Array.from(ref.edges)).toEqual([0, 1, 2, 3, 4]);
  });

  it('lays ORT collect_value out over [-a, a], a = max |x|', () => {
    // a = 2: edges −2, −1, 0, 1, 2; −2 → bin 0, −0.5 → 1, 0.5 and 1.5 → 2 and 3.
    const ref = centeredReference(fold([-2, -0.5, 0.5, 1.5]), 4);
    expect(Array.from(ref.edges)).toEqual([-2, -1, 0, 1, 2]);
    expect(Array.from(ref.counts)).toEqual([1, 1, 1, 1]);
  });

  it('widens an empty range by ±0.5 as numpy does', () => {
    const ref = referenceHistogram(fold([3, 3]), 3, 3, 2);
    expect(Array.from(ref.edges)).toEqual([2.5, 3, 3.5]);
    expect(Array.from(ref.counts)).toEqual([0, 2]);
  });

  it('rounds edges to float32 like ORT (edges cast to the data type)', () => {
    const ref = referenceHistogram(fold([0, 1]), 0, 1, 3);
    expect(ref.edges[1]).toBe(Math.fround(1 / 3));
  });

  it('keeps every value within one fine bin of its true reference bin', () => {
    const x = gaussian(20000, 3);
    const h = fold(x, 8192);
    const ref = spanReference(h, 2048);
    const exact = new Float64Array(2048);
    const w = (h.max - h.min) / 2048;
    for (const v of x) exact[Math.min(2047, Math.floor((v - h.min) / w))]++;
    // A value can only move to a neighbouring reference bin, so the cumulative counts differ by at most the
    // count of values within one fine bin of an edge.
    let ca = 0;
    let cb = 0;
    let worst = 0;
    for (let i = 0; i < 2048; i++) {
      ca += ref.counts[i];
      cb += exact[i];
      worst = Math.max(worst, Math.abs(ca - cb));
    }
    expect(ca).toBe(20000);
    expect(worst).toBeLessThanOrEqual(40);
    expect(binWidth(h)).toBeLessThanOrEqual(w / 2);
  });
});

describe('binPoints', () => {
  it('puts a bin that holds an extreme at the part of the bin inside the data', () => {
    const h = fold([0, 1]);
    const { points, weights } = binPoints(h);
    expect(points[0]).toBeCloseTo(binWidth(h) / 2, 12);
    expect(points[points.length - 1]).toBe(1);
    expect(Array.from(weights)).toEqual([1, 1]);
  });
});

describe('binCenters', () => {
  it('averages float32 edges in float32', () => {
    expect(Array.from(binCenters(Float64Array.from([0, 1, 3])))).toEqual([0.5, 2]);
  });
});

describe('histogramQuantile (numpy.percentile, linear)', () => {
  it('interpolates between order statistics: percentile(0…100, 37.5) = 37.5', () => {
    // rank 0.375 × 100 = 37.5, halfway between the 37th and 38th order statistics (37 and 38).
    const xs = Array.from({ length: 101 }, (_, i) => i);
    const h = fold(xs, 4096);
    expect(Math.abs(histogramQuantile(h, 0.375) - 37.5)).toBeLessThanOrEqual(binWidth(h));
  });

  it('returns the exact extremes at 0 and 1', () => {
    const h = fold([-7, 1, 2, 9.5]);
    expect([histogramQuantile(h, 0), histogramQuantile(h, 1)]).toEqual([-7, 9.5]);
  });

  it('tracks the quantiles of a large sample', () => {
    const x = gaussian(100000, 5);
    const sorted = Float64Array.from(x).sort();
    const h = fold(x, 8192);
    for (const q of [0.001, 0.05, 0.5, 0.95, 0.999]) {
      const r = q * (sorted.length - 1);
      const k = Math.floor(r);
      const truth = sorted[k] + (r - k) * (sorted[k + 1] - sorted[k]);
      expect(Math.abs(histogramQuantile(h, q) - truth)).toBeLessThanOrEqual(binWidth(h));
    }
  });
});
