import { describe, expect, it } from 'vitest';
import { POWER_OF_TWO_POSITION_OFFSETS, PowerOfTwoMinMseCollector } from './pof2MinMse.ts';
import { gaussian, randomPartition, unevenBatches } from '../testData.ts';
import { roundHalfToEven } from '../../quantize/numeric.ts';

const run = (x: Float32Array, options = {}) =>
  PowerOfTwoMinMseCollector.finalize(PowerOfTwoMinMseCollector.update(PowerOfTwoMinMseCollector.create(options), x));

/** Σ (x − dq(q(x)))² on raw values for a power-of-two scale, symmetric int8, written out independently. */
function rawError(x: Float32Array, scale: number): number {
  let s = 0;
  for (const v of x) {
    const q = Math.min(127, Math.max(-127, roundHalfToEven(v / scale)));
    s += (v - q * scale) ** 2;
  }
  return s;
}

describe('power-of-two MinMSE (Quark PowOfTwoCollector, compute_minmse_from_histogram)', () => {
  it('defaults follow Quark: int8, 2048 bins; candidates one coarser, same, three finer', () => {
    expect(PowerOfTwoMinMseCollector.defaults).toEqual({ quantType: 'int8', numBins: 2048 });
    expect(POWER_OF_TWO_POSITION_OFFSETS).toEqual([-1, 0, 1, 2, 3]);
  });

  it('by hand: values evenly spread over [−1, 1] keep the MinMax scale 2^−7', () => {
    // MinMax scale 2 / 254 = 0.00787 → position round(6.99) = 7 → 2^−7. Candidates 2^−6 … 2^−10:
    // 2^−6 quadruples the rounding noise, 2^−8 clips everything beyond ±0.496. Range ±127 · 2^−7.
    const x = Float32Array.from({ length: 2001 }, (_, i) => -1 + i / 1000);
    expect(run(x)).toEqual({ min: -127 / 128, max: 127 / 128, scale: 1 / 128, zeroPoint: 0 });
  });

  it('by hand: one far outlier pulls MinMax to scale 1, the search settles on 1/2', () => {
    // 100 000 N(0, 1) values and one at 100. MinMax scale 200 / 254 → position round(0.34) = 0 → 1.
    // Squared errors ≈ rounding n·s²/12 plus the outlier's clipping (100 − 127 s)²:
    //   s = 2: 33 333;  s = 1: 8 333 + 0;  s = 1/2: 2 083 + 36.5² = 3 415;
    //   s = 1/4: 521 + 68.25² = 5 179;  s = 1/8: 130 + 84.1² = 7 207.  1/2 wins: range ±63.5.
    const x = gaussian(100000, 12);
    x[0] = 100;
    const r = run(x);
    expect(r).toEqual({ min: -63.5, max: 63.5, scale: 0.5, zeroPoint: 0 });
    const errors = [2, 1, 0.5, 0.25, 0.125].map((s) => rawError(x, s));
    expect(errors.indexOf(Math.min(...errors))).toBe(2);
  });

  it('uint8 activations: zero point 128, range [−128 s, 127 s]', () => {
    const x = Float32Array.from({ length: 2001 }, (_, i) => -1 + i / 1000);
    const r = run(x, { quantType: 'uint8' });
    // Float scale 2 / 255 → position round(6.99) = 7; zero point round(0 + 1 / (2/255)) = round(127.5) = 128.
    expect(r.zeroPoint).toBe(128);
    expect(r.min).toBe(-128 * r.scale);
    expect(r.max).toBe(127 * r.scale);
  });

  it('gives the same result in any order and grouping', () => {
    const batches = unevenBatches(10, 1500, 61);
    const fold = (bs: Float32Array[]) =>
      bs.reduce((s, b) => PowerOfTwoMinMseCollector.update(s, b), PowerOfTwoMinMseCollector.create());
    const whole = PowerOfTwoMinMseCollector.finalize(fold(batches));
    for (let seed = 1; seed <= 4; seed++) {
      const merged = randomPartition(batches, 2 + seed, seed)
        .map(fold)
        .reduce((a, b) => PowerOfTwoMinMseCollector.merge(a, b));
      expect(PowerOfTwoMinMseCollector.finalize(merged)).toEqual(whole);
    }
  });
});
