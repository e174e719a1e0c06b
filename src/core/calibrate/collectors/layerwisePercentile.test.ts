import { describe, expect, it } from 'vitest';
import { LayerwisePercentileCollector, layerwiseError } from './layerwisePercentile.ts';
import { PercentileCollector } from './percentile.ts';
import { gaussian, randomPartition, unevenBatches } from '../testData.ts';

const run = (x: Float32Array, options = {}) =>
  LayerwisePercentileCollector.finalize(
    LayerwisePercentileCollector.update(LayerwisePercentileCollector.create(options), x),
  );

describe('layer-wise percentile (Quark LayerWisePercentileCalibrater)', () => {
  it('defaults follow Quark: candidates 99.99 / 99.999 / 99.99999, 2048 bins, symmetric, MAE, int8', () => {
    expect(LayerwisePercentileCollector.defaults).toEqual({
      percentileCandidates: [99.99, 99.999, 99.99999],
      numBins: 2048,
      symmetric: true,
      metric: 'mae',
      quantType: 'int8',
    });
  });

  it('by hand: the error of one value for the range [−1, 1], int8', () => {
    // scale = 2/255 + 1e-6 = 0.0078441; zp = round(−1/scale + 128) = round(0.516) = 1;
    // q = round(0.5/scale − 1) = round(62.742) = 63; dq = (63 + 1) · scale = 0.5020248; |error| = 0.0020248.
    const scale = 2 / 255 + 1e-6;
    const e = layerwiseError(
      { points: Float64Array.from([0.5]), weights: Float64Array.from([1]) },
      { min: -1, max: 1 },
      'int8',
      'mae',
    );
    expect(e).toBeCloseTo(64 * scale - 0.5, 12);
    expect(e).toBeCloseTo(0.0020248, 7);
  });

  it("returns the Percentile collector's range for the candidate with the least error", () => {
    const x = gaussian(300000, 14);
    for (let i = 0; i < 3; i++) x[i * 7919] = 25 + i;
    const r = run(x);
    expect([99.99, 99.999, 99.99999]).toContain(r.percentile);
    const same = PercentileCollector.finalize(
      PercentileCollector.update(PercentileCollector.create({ percentile: r.percentile }), x),
    );
    expect({ min: r.min, max: r.max }).toEqual(same);
  });

  it('prefers clipping three far outliers in 300 000 values (MAE)', () => {
    // 99.99 cuts 30 values, so the outliers at 25…27 go; 99.99999 keeps them and the 8-bit step grows ~6×.
    const x = gaussian(300000, 14);
    for (let i = 0; i < 3; i++) x[i * 7919] = 25 + i;
    const r = run(x);
    expect(r.percentile).toBe(99.99);
    expect(r.max).toBeLessThan(6);
  });

  it('gives the same result in any order and grouping', () => {
    const batches = unevenBatches(9, 1500, 71);
    const fold = (bs: Float32Array[]) =>
      bs.reduce((s, b) => LayerwisePercentileCollector.update(s, b), LayerwisePercentileCollector.create());
    const whole = LayerwisePercentileCollector.finalize(fold(batches));
    const merged = randomPartition(batches, 4, 3)
      .map(fold)
      .reduce((a, b) => LayerwisePercentileCollector.merge(a, b));
    expect(LayerwisePercentileCollector.finalize(merged)).toEqual(whole);
  });
});
