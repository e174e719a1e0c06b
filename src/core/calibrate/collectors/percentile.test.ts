import { describe, expect, it } from 'vitest';
import { PercentileCollector } from './percentile.ts';
import { gaussian, randomPartition, unevenBatches, uniform } from '../testData.ts';

const f32 = (xs: number[]) => Float32Array.from(xs);
const run = (x: Float32Array, options = {}) =>
  PercentileCollector.finalize(PercentileCollector.update(PercentileCollector.create(options), x));

describe('Percentile (ORT compute_percentile)', () => {
  it('defaults follow ORT create_calibrator: 99.999, 2048 bins, symmetric', () => {
    expect(PercentileCollector.defaults).toEqual({ percentile: 99.999, numBins: 2048, symmetric: true });
  });

  it('symmetric, by hand: |x| = 1…10 in 10 bins, 75th percentile, clipped to the data', () => {
    // Bins over [1, 10] are 0.9 wide, one value each: cdf 0.1, 0.2, …, 1.0. The first cdf ≥ 0.75 is
    // index 7 (0.8), so t = edge[7] = 1 + 7 × 0.9 = 7.3 (float32). [−7.3, 7.3] clipped to min 1 → [1, 7.3].
    const r = run(f32([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), { numBins: 10, percentile: 75 });
    expect(r).toEqual({ min: 1, max: Math.fround(1 + 7 * 0.9) });
  });

  it('symmetric, by hand: a cdf that reaches the percentile exactly stops in that bin (searchsorted, left)', () => {
    // |x| = 1…4 in 4 bins of 0.75: cdf 0.25, 0.5, 0.75, 1 (exact in binary). The first cdf ≥ 0.5 is
    // index 1, so t = edge[1] = 1.75; [−1.75, 1.75] clipped to min 1 → [1, 1.75].
    expect(run(f32([1, 2, 3, 4]), { numBins: 4, percentile: 50 })).toEqual({ min: 1, max: 1.75 });
  });

  it('asymmetric, by hand: −5…4 over [−5, 5] in 10 bins, 70th percentile', () => {
    // 15% cut each side. cdf 0.1, 0.2, …; first ≥ 0.15 is index 1 → edge −4; first ≥ 0.85 is index 8
    // (0.1 summed nine times is 0.8999…) → edge 3.
    const r = run(f32([-5, -4, -3, -2, -1, 0, 1, 2, 3, 4]), { numBins: 10, percentile: 70, symmetric: false });
    expect(r).toEqual({ min: -4, max: 3 });
  });

  it('uniform values: the symmetric 99th percentile of |x| is near 0.99', () => {
    const r = run(uniform(200000, 1, -1, 1), { percentile: 99 });
    // Within one reference bin (1/2048) plus sampling noise of the 99% quantile.
    expect(r.max).toBeGreaterThan(0.985);
    expect(r.max).toBeLessThan(0.995);
    expect(r.min).toBe(-r.max);
  });

  it('Gaussian values: symmetric 99.9th percentile of |x| ≈ 3.29, asymmetric 99.9 ≈ ±3.29 (0.05% each side)', () => {
    const x = gaussian(400000, 2);
    const s = run(x, { percentile: 99.9 });
    expect(s.max).toBeGreaterThan(3.2);
    expect(s.max).toBeLessThan(3.38);
    const a = run(x, { percentile: 99.9, symmetric: false });
    expect(a.min).toBeLessThan(-3.2);
    expect(a.max).toBeGreaterThan(3.2);
    expect(a.max).toBeLessThan(3.6);
  });

  it('ignores far outliers rarer than 100 − p percent, which MinMax would keep', () => {
    // Two outliers in 100 000 values are 0.002 %: inside the 0.01 % that 99.99 cuts, not the 0.001 % of 99.999.
    const x = gaussian(100000, 4);
    x[0] = 1000;
    x[1] = -800;
    expect(run(x, { percentile: 99.99 }).max).toBeLessThan(10);
    expect(run(x, { percentile: 99.999 }).max).toBeGreaterThan(700);
  });

  it('matches the exact percentile of the data to within one reference bin', () => {
    const x = gaussian(50000, 9, 2, 3);
    const abs = Float64Array.from(x, Math.abs).sort();
    const r = run(x, { percentile: 99 });
    // ORT takes the left edge of the bin where the cdf reaches 99%: at or below the 99% order statistic,
    // by less than one bin of width (max |x| − min |x|) / 2048, plus at most one fine bin of re-binning.
    const truth = abs[Math.ceil(0.99 * abs.length) - 1];
    const bin = (abs[abs.length - 1] - abs[0]) / 2048;
    expect(Math.abs(r.max - truth)).toBeLessThan(1.5 * bin);
  });

  it('rejects a percentile outside [0, 100]', () => {
    expect(() => PercentileCollector.create({ percentile: 101 })).toThrow(RangeError);
  });
});

describe('Percentile merging', () => {
  const batches = unevenBatches(10, 2000, 31);
  for (const symmetric of [true, false]) {
    it(`gives the same range in any order and grouping (symmetric: ${symmetric})`, () => {
      const fold = (bs: Float32Array[]) =>
        bs.reduce((s, b) => PercentileCollector.update(s, b), PercentileCollector.create({ symmetric }));
      const whole = PercentileCollector.finalize(fold(batches));
      for (let seed = 1; seed <= 5; seed++) {
        const merged = randomPartition(batches, 3, seed)
          .map(fold)
          .reduce((a, b) => PercentileCollector.merge(a, b));
        expect(PercentileCollector.finalize(merged)).toEqual(whole);
      }
    });
  }
});
