import { describe, expect, it } from 'vitest';
import { MinMaxCollector } from './minmax.ts';
import { MIN_MSE_PERCENTILES, MinMseCollector, type MinMseOptions } from './minmse.ts';
import { floatScaleZeroPoint, searchBounds } from './qdqError.ts';
import { gaussian, randomPartition, unevenBatches, uniform } from '../testData.ts';
import { roundHalfToEven } from '../../quantize/numeric.ts';

const f32 = (xs: number[]) => Float32Array.from(xs);
const run = (x: Float32Array, options: Partial<MinMseOptions> = {}) =>
  MinMseCollector.finalize(MinMseCollector.update(MinMseCollector.create(options), x));

/** Mean squared round-trip error on the raw values, written out independently of the collector. */
function rawMse(x: Float32Array, rmin: number, rmax: number, symmetric: boolean): number {
  const bounds = searchBounds('int8', symmetric);
  const { scale, zeroPoint } = floatScaleZeroPoint(rmin, rmax, bounds, symmetric);
  let s = 0;
  for (const v of x) {
    const q = Math.min(bounds.qmax, Math.max(bounds.qmin, roundHalfToEven(Math.fround(v / scale)) + zeroPoint));
    s += (v - (q - zeroPoint) * scale) ** 2;
  }
  return s / x.length;
}

function rawPercentile(sorted: Float64Array, q: number): number {
  const r = q * (sorted.length - 1);
  const k = Math.floor(r);
  return k + 1 < sorted.length ? sorted[k] + (r - k) * (sorted[k + 1] - sorted[k]) : sorted[k];
}

describe('MinMSE, float scale (Quark compute_minmse)', () => {
  it("defaults follow Quark: 'Percentile' mode, symmetric int8, ≤ 2048 bins (plus the sweep)", () => {
    expect(MinMseCollector.defaults).toEqual({
      mode: 'Percentile',
      quantType: 'int8',
      symmetric: true,
      numBins: 2048,
      sweep: true,
    });
    expect(MIN_MSE_PERCENTILES).toEqual([99.9, 99.99, 99.999, 99.9999]);
  });

  it("'HistCenter' by hand: 4 bins over [−4, 8], asymmetric int8", () => {
    // Centres −2.5, 0.5, 3.5, 6.5 (one value each). Candidates (bins / 2 = 2 … 3):
    //   c = 2: [centre 1, centre 3] = [0.5, 6.5] → widened to [0, 6.5]: scale 6.5/255, zp −128;
    //          −2.5 clamps to code −128 → 0, error 2.5² = 6.25.
    //   c = 3: [centre 0, centre 3] = [−2.5, 6.5]: scale 9/255, zp round(−128 + 70.83) = −57;
    //          every centre within 0.006 of a code: error ≈ 1.4e-4. c = 3 wins.
    const r = run(f32([-4, 0, 3, 8]), { mode: 'HistCenter', numBins: 4, symmetric: false, sweep: false });
    expect(r).toEqual({ min: -2.5, max: 6.5, scale: Math.fround(9 / 255), zeroPoint: -57 });
  });

  it("'HistCenter' by hand, symmetric: a repeated scale is skipped and the range is returned as found", () => {
    // c = 2 gives [0.5, 6.5] and c = 3 gives [−2.5, 6.5]; symmetrised both are [−6.5, 6.5], the same
    // scale 13/254, so c = 3 is skipped and Quark returns the first candidate un-symmetrised.
    const r = run(f32([-4, 0, 3, 8]), { mode: 'HistCenter', numBins: 4, sweep: false });
    expect(r).toEqual({ min: 0.5, max: 6.5, scale: Math.fround(13 / 254), zeroPoint: 0 });
  });

  it("'Percentile' picks the candidate with the least error on the raw values", () => {
    // Uniform data with a tail of 0.003 % outliers between 30 and 38: the candidates differ in whether they
    // keep the tail. The chosen range must be the candidate with the least error measured on the raw data.
    const x = uniform(300000, 3, -1, 1);
    for (let i = 0; i < 9; i++) x[i * 1000] = 30 + i;
    const sorted = Float64Array.from(x).sort();
    const r = run(x, { sweep: false });
    const candidates = MIN_MSE_PERCENTILES.map((p) => [
      rawPercentile(sorted, (100 - p) / 200),
      rawPercentile(sorted, 1 - (100 - p) / 200),
    ]);
    const errors = candidates.map(([lo, hi]) => rawMse(x, lo, hi, true));
    const best = errors.indexOf(Math.min(...errors));
    expect(r.max).toBeCloseTo(candidates[best][1], 2);
    expect(rawMse(x, r.min, r.max, true)).toBeLessThanOrEqual(errors[best] * 1.001);
  });

  it("with the sweep (the default), never errs more than MinMax or than Quark's candidates alone, on its own values", () => {
    for (const [seed, x] of [
      [1, gaussian(50000, 11)],
      [2, uniform(50000, 12, 0, 6)],
    ] as const) {
      x[seed] = 25; // one outlier
      const minmax = MinMaxCollector.finalize(MinMaxCollector.update(MinMaxCollector.create(), x));
      for (const symmetric of [true, false]) {
        const swept = run(x, { symmetric });
        const quark = run(x, { symmetric, sweep: false });
        const error = rawMse(x, swept.min, swept.max, symmetric);
        expect(error).toBeLessThanOrEqual(rawMse(x, minmax.min, minmax.max, symmetric) * 1.0001);
        expect(error).toBeLessThanOrEqual(rawMse(x, quark.min, quark.max, symmetric) * 1.0001);
      }
    }
  });

  it("'HistCenter' and 'All' clip outliers and beat MinMax on the raw values", () => {
    const x = gaussian(100000, 6);
    x[5] = 40;
    x[6] = -35;
    const minmax = MinMaxCollector.finalize(MinMaxCollector.update(MinMaxCollector.create(), x));
    for (const mode of ['HistCenter', 'All'] as const) {
      const r = run(x, { mode });
      expect(Math.max(-r.min, r.max)).toBeLessThan(39);
      expect(rawMse(x, r.min, r.max, true)).toBeLessThan(rawMse(x, minmax.min, minmax.max, true));
    }
  });

  it('gives the same result in any order and grouping, in every mode', () => {
    const batches = unevenBatches(8, 1500, 51);
    for (const mode of ['Percentile', 'HistCenter', 'All'] as const) {
      const fold = (bs: Float32Array[]) =>
        bs.reduce((s, b) => MinMseCollector.update(s, b), MinMseCollector.create({ mode }));
      const whole = MinMseCollector.finalize(fold(batches));
      const merged = randomPartition(batches, 3, 7)
        .map(fold)
        .reduce((a, b) => MinMseCollector.merge(a, b));
      expect(MinMseCollector.finalize(merged)).toEqual(whole);
    }
  });

  it('rejects an unknown mode or an unsupported type', () => {
    expect(() => MinMseCollector.create({ mode: 'Median' as never })).toThrow(RangeError);
    expect(() => MinMseCollector.create({ quantType: 'int32' })).toThrow(RangeError);
  });
});
