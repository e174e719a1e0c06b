import { describe, expect, it } from 'vitest';
import {
  POF2_MINMSE_EXPONENT_OFFSETS,
  channelRanges,
  computePowerOfTwoScaleZeroPoint,
  computeQParams,
  computeScaleZeroPoint,
  integerRange,
  powerOfTwoExponent,
  tensorRange,
} from './qparams.ts';

const f32 = Math.fround;

describe('integerRange (get_qmin_qmax_for_qType)', () => {
  it.each([
    // type, symmetric, reduceRange, rule, expected
    ['int8', false, false, 'ort', [-128, 127]],
    ['int8', true, false, 'ort', [-127, 127]],
    ['uint8', true, false, 'ort', [0, 254]], // ORT restricts unsigned too (PR #22020)
    ['uint8', true, false, 'quark', [0, 255]], // Quark does not
    ['int16', true, false, 'ort', [-32767, 32767]],
    ['uint16', true, false, 'ort', [0, 65534]],
    ['int4', true, false, 'ort', [-8, 7]], // no restricted 4-bit range in either table
    ['int8', true, true, 'ort', [-64, 64]], // reduce_range wins over symmetric
    ['uint8', false, true, 'ort', [0, 127]],
    ['int16', false, true, 'quark', [-16384, 16384]],
    ['uint4', false, true, 'ort', [0, 7]],
  ] as const)('%s symmetric=%s reduce=%s (%s) → %j', (type, symmetric, reduceRange, rule, expected) => {
    expect(integerRange(type, { symmetric, reduceRange, rule })).toEqual(expected);
  });
});

describe('computeScaleZeroPoint (ORT compute_scale_zp)', () => {
  it('asymmetric uint8 over [-1, 3]: scale 4/255, zero point round(63.75) = 64', () => {
    expect(computeScaleZeroPoint(-1, 3, 'uint8')).toEqual({ scale: f32(4 / 255), zeroPoint: 64 });
  });
  it('widens the range to include 0: [0.5, 2] is treated as [0, 2]', () => {
    expect(computeScaleZeroPoint(0.5, 2, 'uint8')).toEqual({ scale: f32(2 / 255), zeroPoint: 0 });
    // [-2, -0.5] → [-2, 0]: zero sits at the top code.
    expect(computeScaleZeroPoint(-2, -0.5, 'uint8')).toEqual({ scale: f32(2 / 255), zeroPoint: 255 });
  });
  it('asymmetric int8 over [-1, 3]: zero point round(-128 + 63.75) = -64', () => {
    expect(computeScaleZeroPoint(-1, 3, 'int8')).toEqual({ scale: f32(4 / 255), zeroPoint: -64 });
  });
  it('symmetric int8 uses ±absmax and -127..127: [-1, 3] → scale 6/254, zero point 0', () => {
    expect(computeScaleZeroPoint(-1, 3, 'int8', { symmetric: true })).toEqual({ scale: f32(6 / 254), zeroPoint: 0 });
  });
  it('symmetric int16: [-2, 1] → scale 4/65534, zero point 0', () => {
    expect(computeScaleZeroPoint(-2, 1, 'int16', { symmetric: true })).toEqual({ scale: f32(4 / 65534), zeroPoint: 0 });
  });
  it('symmetric unsigned takes the midpoint of the restricted range: uint8 127, uint16 32767', () => {
    expect(computeScaleZeroPoint(-1, 3, 'uint8', { symmetric: true })).toEqual({ scale: f32(6 / 254), zeroPoint: 127 });
    expect(computeScaleZeroPoint(-1, 1, 'uint16', { symmetric: true }).zeroPoint).toBe(32767);
  });
  it('rounds the zero point half to even: uint16 over [-1, 1] → 1/(2/65535) = 32767.5 → 32768', () => {
    expect(computeScaleZeroPoint(-1, 1, 'uint16')).toEqual({ scale: f32(2 / 65535), zeroPoint: 32768 });
  });
  it('int4 symmetric uses the full -8..7: scale 2/15, zero point round(-0.5) = 0 (not -0)', () => {
    const p = computeScaleZeroPoint(-1, 1, 'int4', { symmetric: true });
    expect(p).toEqual({ scale: f32(2 / 15), zeroPoint: 0 });
    expect(Object.is(p.zeroPoint, -0)).toBe(false);
  });
  it('reduce_range int8 [-1, 1]: scale 2/128, zero point round(-64 + 64) = 0', () => {
    expect(computeScaleZeroPoint(-1, 1, 'int8', { reduceRange: true })).toEqual({ scale: 1 / 64, zeroPoint: 0 });
  });
  it('a zero or sub-normal range gives scale 1, zero point 0', () => {
    expect(computeScaleZeroPoint(0, 0, 'uint8')).toEqual({ scale: 1, zeroPoint: 0 });
    expect(computeScaleZeroPoint(0, 1e-40, 'int8', { symmetric: true })).toEqual({ scale: 1, zeroPoint: 0 });
  });
  it('MinimumRealRange widens rmax to rmin + min_real_range', () => {
    expect(computeScaleZeroPoint(0, 0, 'uint8', { minRealRange: 1e-4 })).toEqual({
      scale: f32(f32(1e-4) / 255),
      zeroPoint: 0,
    });
    // Already wide enough: unchanged.
    expect(computeScaleZeroPoint(-1, 3, 'uint8', { minRealRange: 1 })).toEqual(computeScaleZeroPoint(-1, 3, 'uint8'));
  });
  it('infinite bounds become ±FLT_MAX/2 (Quark), NaN is an error', () => {
    expect(Number.isFinite(computeScaleZeroPoint(-Infinity, Infinity, 'int8', { symmetric: true }).scale)).toBe(true);
    expect(() => computeScaleZeroPoint(NaN, 1, 'uint8')).toThrow(RangeError);
  });
});

describe('powerOfTwoExponent (Quark scale2pos)', () => {
  it('rounds -log2(scale) to the nearest integer, not up', () => {
    // 2/254 = 0.00787: -log2 = 6.989 → 7.  3/254 = 0.01181: 6.404 → 6.  2.4/254 = 0.00945: 6.726 → 7.
    expect([2 / 254, 3 / 254, 2.4 / 254].map(powerOfTwoExponent)).toEqual([7, 6, 7]);
    expect([1, 0.5, 4].map(powerOfTwoExponent)).toEqual([0, 1, -2]);
  });
  it('clamps the scale to [2^-127, 2^127]', () => {
    expect(powerOfTwoExponent(0)).toBe(127);
    expect(powerOfTwoExponent(1e300)).toBe(-127);
  });
  it('MinMSE tries exponents n-1 … n+3', () => {
    expect(POF2_MINMSE_EXPONENT_OFFSETS).toEqual([-1, 0, 1, 2, 3]);
  });
});

describe('computePowerOfTwoScaleZeroPoint (Quark compute_scale_zp, PowerOfTwoMethod)', () => {
  it('symmetric int8 over [-1, 1]: float scale 2/254 → 2^-7, zero point 0', () => {
    expect(computePowerOfTwoScaleZeroPoint(-1, 1, 'int8', { symmetric: true })).toEqual({
      scale: 2 ** -7,
      zeroPoint: 0,
      exponent: 7,
    });
  });
  it('can round the scale down, so the range edge saturates: [-1.2, 1.2] → 2^-7, max 127/128 < 1.2', () => {
    const p = computePowerOfTwoScaleZeroPoint(-1.2, 1.2, 'int8', { symmetric: true });
    expect(p.scale).toBe(2 ** -7);
    expect(127 * p.scale).toBeLessThan(1.2);
  });
  it('or up: [-1.5, 1.5] → 3/254 = 0.0118 → 2^-6', () => {
    expect(computePowerOfTwoScaleZeroPoint(-1.5, 1.5, 'int8', { symmetric: true }).scale).toBe(2 ** -6);
  });
  it('symmetric uint8 (XINT8 activations) keeps 0..255 and gets zero point 128', () => {
    // 2/255 → 2^-7; zero point round(0 + 1/(2/255)) = round(127.5) = 128 (and 127 would be moved to 128).
    expect(computePowerOfTwoScaleZeroPoint(-1, 1, 'uint8', { symmetric: true })).toEqual({
      scale: 2 ** -7,
      zeroPoint: 128,
      exponent: 7,
    });
    expect(computePowerOfTwoScaleZeroPoint(-0.3, 0.5, 'uint8', { symmetric: true }).zeroPoint).toBe(128);
  });
  it('asymmetric: the zero point comes from the float scale and is kept after the snap', () => {
    // [-1, 2], uint8: float scale 3/255 = 0.01176 → 2^-6; zero point round(1 / (3/255)) = 85, not 1/2^-6 = 64.
    expect(computePowerOfTwoScaleZeroPoint(-1, 2, 'uint8')).toEqual({ scale: 2 ** -6, zeroPoint: 85, exponent: 6 });
    // [0, 1]: 1/255 → 2^-8, zero point 0.
    expect(computePowerOfTwoScaleZeroPoint(0, 1, 'uint8')).toEqual({ scale: 2 ** -8, zeroPoint: 0, exponent: 8 });
  });
  it('a zero range gives scale 2^0 = 1, zero point 0', () => {
    expect(computePowerOfTwoScaleZeroPoint(0, 0, 'uint8', { symmetric: true })).toEqual({
      scale: 1,
      zeroPoint: 0,
      exponent: 0,
    });
  });
  it('computeQParams dispatches on scaleType', () => {
    expect(computeQParams(-1, 1, 'int8', { symmetric: true, scaleType: 'powerOfTwo' })).toEqual({
      scale: 2 ** -7,
      zeroPoint: 0,
    });
    expect(computeQParams(-1, 1, 'int8', { symmetric: true })).toEqual({ scale: f32(2 / 254), zeroPoint: 0 });
  });
});

describe('ranges', () => {
  it('tensorRange: min and max; empty is [0, 0]; NaN propagates', () => {
    expect(tensorRange(new Float32Array([0.5, -2, 3]))).toEqual({ min: -2, max: 3 });
    expect(tensorRange(new Float32Array(0))).toEqual({ min: 0, max: 0 });
    expect(Number.isNaN(tensorRange([1, NaN, 2]).min)).toBe(true);
  });
  it('channelRanges along axis 0 of a Conv weight [2,1,1,3]', () => {
    const w = new Float32Array([-1, 0.5, 0.25, 0.125, 0.25, 0.5]);
    const { mins, maxs } = channelRanges(w, [2, 1, 1, 3], 0);
    expect(Array.from(mins)).toEqual([-1, 0.125]);
    expect(Array.from(maxs)).toEqual([0.5, 0.5]);
  });
  it('channelRanges along the last axis of a MatMul weight [3,2] (axis -1 = 1)', () => {
    // rows: [1, -4], [2, 5], [-3, 6] → column 0 in [-3, 2], column 1 in [-4, 6]
    const w = new Float32Array([1, -4, 2, 5, -3, 6]);
    const { mins, maxs } = channelRanges(w, [3, 2], -1);
    expect(Array.from(mins)).toEqual([-3, -4]);
    expect(Array.from(maxs)).toEqual([2, 6]);
  });
  it('rejects a bad axis or dims that do not match the data', () => {
    expect(() => channelRanges(new Float32Array(6), [3, 2], 2)).toThrow(RangeError);
    expect(() => channelRanges(new Float32Array(5), [3, 2], 0)).toThrow(RangeError);
  });
});
