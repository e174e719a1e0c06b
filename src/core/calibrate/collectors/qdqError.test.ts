import { describe, expect, it } from 'vitest';
import { roundHalfToEven } from '../../quantize/numeric.ts';
import { gaussian, uniform } from '../testData.ts';
import {
  floatScaleZeroPoint,
  positionToScale,
  powerOfTwoScaleZeroPoint,
  qdqSquaredError,
  scaleToPosition,
  searchBounds,
} from './qdqError.ts';

describe('searchBounds (Quark get_qmin_qmax_for_qType)', () => {
  it('narrows symmetric int8 / int16 to ±max and leaves the rest', () => {
    expect(searchBounds('int8', true)).toEqual({ qmin: -127, qmax: 127 });
    expect(searchBounds('int8', false)).toEqual({ qmin: -128, qmax: 127 });
    expect(searchBounds('int16', true)).toEqual({ qmin: -32767, qmax: 32767 });
    expect(searchBounds('uint8', true)).toEqual({ qmin: 0, qmax: 255 });
    expect(searchBounds('int4', true)).toEqual({ qmin: -8, qmax: 7 });
  });
});

describe('floatScaleZeroPoint (Quark compute_scale_zp, float scale)', () => {
  it('symmetric int8: [−1, 3] → [−3, 3], scale 6/254, zero point 0', () => {
    expect(floatScaleZeroPoint(-1, 3, searchBounds('int8', true), true)).toEqual({
      scale: Math.fround(6 / 254),
      zeroPoint: 0,
    });
  });
  it('asymmetric uint8: [0.5, 2] widens to [0, 2]: scale 2/255, zero point round(0 − 0) = 0', () => {
    expect(floatScaleZeroPoint(0.5, 2, searchBounds('uint8', false), false)).toEqual({
      scale: Math.fround(2 / 255),
      zeroPoint: 0,
    });
  });
  it('asymmetric uint8: [−1, 1] → zero point round(0 + 1/(2/255)) = round(127.5) = 128 (ties to even)', () => {
    expect(floatScaleZeroPoint(-1, 1, searchBounds('uint8', false), false).zeroPoint).toBe(128);
  });
  it('rounds a tied zero point to even: uint8 [−126.5, 128.5] → scale 1, zero point round(126.5) = 126', () => {
    expect(floatScaleZeroPoint(-126.5, 128.5, searchBounds('uint8', false), false)).toEqual({
      scale: 1,
      zeroPoint: 126,
    });
  });
  it('an all-zero range gives scale 1, zero point 0', () => {
    expect(floatScaleZeroPoint(0, 0, searchBounds('int8', true), true)).toEqual({ scale: 1, zeroPoint: 0 });
  });
});

describe('power-of-two scales (Quark scale2pos / pos2scale)', () => {
  it('rounds −log2(scale) to the nearest integer', () => {
    // −log2(2/254) = 6.989 → 7; −log2(0.1) = 3.32 → 3; −log2(3) = −1.58 → −2.
    expect([scaleToPosition(2 / 254), scaleToPosition(0.1), scaleToPosition(3)]).toEqual([7, 3, -2]);
    expect(positionToScale(7)).toBe(1 / 128);
  });
  it('symmetric int8 [−1, 1]: float scale 1/127 becomes 2^−7, zero point 0', () => {
    expect(powerOfTwoScaleZeroPoint(-1, 1, searchBounds('int8', true), true)).toEqual({ scale: 1 / 128, zeroPoint: 0 });
  });
});

describe('qdqSquaredError', () => {
  it('by hand: scale 0.5, zero point 0, int8 narrow', () => {
    // 0.3 → round(0.6) = 1 → 0.5, error 0.2²; 0.25 → round(0.5) = 0 (ties to even) → 0, error 0.25²;
    // 100 → 200 clamps to 127 → 63.5, error 36.5². Weights 1, 2, 1.
    const e = qdqSquaredError(
      Float64Array.from([0.3, 0.25, 100]),
      Float64Array.from([1, 2, 1]),
      { scale: 0.5, zeroPoint: 0 },
      searchBounds('int8', true),
    );
    expect(e).toBeCloseTo(0.2 ** 2 + 2 * 0.25 ** 2 + 36.5 ** 2, 9);
  });

  it('is the textbook sum term for term (branch-free rounding, asymmetric zero points, saturation both sides)', () => {
    const pts = Float64Array.from(gaussian(3000, 9, 0.4, 3));
    const wts = Float64Array.from(uniform(3000, 10, 1, 50), Math.round);
    for (const [bounds, s] of [
      [searchBounds('int8', true), { scale: Math.fround(0.011), zeroPoint: 0 }],
      [searchBounds('uint8', false), { scale: Math.fround(0.02), zeroPoint: 131 }],
      [searchBounds('int16', false), { scale: Math.fround(1e-4), zeroPoint: -7 }],
      [searchBounds('int8', true), { scale: 0.5, zeroPoint: 0 }], // exact ties: x / 0.5 = k + 0.5
    ] as const) {
      let textbook = 0;
      for (let i = 0; i < pts.length; i++) {
        const r = roundHalfToEven(Math.fround(pts[i] / s.scale)) + s.zeroPoint;
        const q = r < bounds.qmin ? bounds.qmin : r > bounds.qmax ? bounds.qmax : r;
        const d = pts[i] - (q - s.zeroPoint) * s.scale;
        textbook += wts[i] * d * d;
      }
      expect(qdqSquaredError(pts, wts, s, bounds)).toBe(textbook);
      // Cut short at a bound below the sum: a value at or above it. At a bound above it: the whole sum.
      expect(qdqSquaredError(pts, wts, s, bounds, textbook / 3)).toBeGreaterThanOrEqual(textbook / 3);
      expect(qdqSquaredError(pts, wts, s, bounds, textbook / 3)).toBeLessThan(textbook);
      expect(qdqSquaredError(pts, wts, s, bounds, textbook * 2)).toBe(textbook);
    }
  });
});
