import { describe, expect, it } from 'vitest';
import { DistributionCollector, histogramMoments } from './distribution.ts';
import { gaussian } from '../testData.ts';

const f32 = (xs: number[]) => Float32Array.from(xs);
const run = (x: Float32Array, options = {}) =>
  DistributionCollector.finalize(DistributionCollector.update(DistributionCollector.create(options), x));

describe('Distribution (ORT compute_distribution / _avg_std)', () => {
  it('defaults follow ORT create_calibrator: 2048 bins, scenario "same"', () => {
    expect(DistributionCollector.defaults).toEqual({ numBins: 2048, scenario: 'same' });
  });

  it('by hand: moments of the bin centres', () => {
    // counts [1, 3] at centres [−2, 2]: avg = (−2 + 6) / 4 = 1; E[v²] = 4; std = √(4 − 1) = √3.
    expect(histogramMoments(Float64Array.from([1, 3]), Float64Array.from([-2, 2]), 'same')).toEqual({
      avg: 1,
      std: Math.fround(Math.sqrt(3)),
    });
    // 'p3' uses sign(v)·|v|^(1/3): centres [−8, 8] → [−2, 2], same moments.
    expect(histogramMoments(Float64Array.from([1, 3]), Float64Array.from([-8, 8]), 'p3')).toEqual({
      avg: 1,
      std: Math.fround(Math.sqrt(3)),
    });
  });

  it('by hand, through the collector: values −1 (×2) and 1 (×4) over [−1, 1] in 512 bins', () => {
    // Bin width 2/512; −1 falls in the first bin (centre −1 + 1/512), 1 in the last (centre 1 − 1/512).
    // c = 1 − 1/512: avg = (−2c + 4c) / 6 = c/3; E[v²] = c²; std = √(c² − c²/9) = c·√8 / 3.
    const c = 1 - 1 / 512;
    const r = run(f32([-1, -1, 1, 1, 1, 1]), { numBins: 512 });
    expect(r.min).toBe(-1);
    expect(r.max).toBe(1);
    expect(r.avg).toBeCloseTo(c / 3, 6);
    expect(r.std).toBeCloseTo((c * Math.sqrt(8)) / 3, 6);
  });

  it('a standard Gaussian gives avg ≈ 0, std ≈ 1', () => {
    const r = run(gaussian(200000, 8, 0, 1));
    expect(Math.abs(r.avg)).toBeLessThan(0.01);
    expect(r.std).toBeGreaterThan(0.99);
    expect(r.std).toBeLessThan(1.01);
  });

  it('requires at least 512 bins, as ORT does', () => {
    expect(() => DistributionCollector.create({ numBins: 256 })).toThrow(RangeError);
  });
});
