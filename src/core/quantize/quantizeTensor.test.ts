import { describe, expect, it } from 'vitest';
import { quantizeValue } from './numeric.ts';
import { adjustWeightScalesForInt32Bias, biasScales, quantizeBias, quantizeTensor } from './quantizeTensor.ts';

const f32 = Math.fround;

describe('quantizeTensor', () => {
  it('per tensor: the ONNX QuantizeLinear spec vector, as a Uint8Array', () => {
    const q = quantizeTensor(new Float32Array([0, 2, 3, 1000, -254, -1000]), 2, 128, 'uint8');
    expect(q).toBeInstanceOf(Uint8Array);
    expect(Array.from(q)).toEqual([128, 129, 130, 255, 1, 0]);
  });
  it('per channel along axis 0 of [2,3], ties to even in float32', () => {
    // channel 0: scale f32(1/127): -1 → -127, 0.5 → 63.5 → 64, 0.25 → 31.75 → 32
    // channel 1: scale 0.5, zero point 10: 1 → 12, -1 → 8, 0.25 → 10.5 → 10 (+10) = 10
    const w = new Float32Array([-1, 0.5, 0.25, 1, -1, 0.25]);
    const q = quantizeTensor(w, [f32(1 / 127), 0.5], [0, 10], 'int8', 0, [2, 3]);
    expect(q).toBeInstanceOf(Int8Array);
    expect(Array.from(q)).toEqual([-127, 64, 32, 12, 8, 10]);
  });
  it('per channel along the last axis of [2,2] (MatMul B)', () => {
    // columns: scale 1 and 0.5 → [[1/1, 1/0.5], [3/1, -2/0.5]] = [[1, 2], [3, -4]]
    const q = quantizeTensor(new Float32Array([1, 1, 3, -2]), [1, 0.5], [0, 0], 'int8', -1, [2, 2]);
    expect(Array.from(q)).toEqual([1, 2, 3, -4]);
  });
  it('every code equals quantizeValue of its element: ties, saturation, infinities, NaN, per tensor and per channel', () => {
    const data = [0.5, 1.5, 2.5, -0.5, -2.5, 1e9, -1e9, Infinity, -Infinity, NaN, 0.1, 126.5, -127.5, 300];
    for (const type of ['int8', 'uint8', 'int16', 'uint16', 'int4', 'uint4', 'int32'] as const) {
      const zp = type.startsWith('u') ? 3 : -2;
      expect(Array.from(quantizeTensor(data, 0.5, zp, type))).toEqual(
        data.map((x) => quantizeValue(x, 0.5, zp, type) || 0),
      );
      const perChannel = quantizeTensor(data, [0.5, 0.25], [zp, 0], type, 0, [2, 7]);
      expect(Array.from(perChannel)).toEqual(
        data.map((x, i) => (i < 7 ? quantizeValue(x, 0.5, zp, type) : quantizeValue(x, 0.25, 0, type)) || 0),
      );
    }
  });
  it('returns the right array type and saturates at each range', () => {
    expect(quantizeTensor([1e6], 1, 0, 'int16')).toBeInstanceOf(Int16Array);
    expect(Array.from(quantizeTensor([1e6, -1e6], 1, 0, 'int16'))).toEqual([32767, -32768]);
    expect(quantizeTensor([1], 1, 0, 'uint16')).toBeInstanceOf(Uint16Array);
    expect(Array.from(quantizeTensor([100, -100], 1, 0, 'int4'))).toEqual([7, -8]);
    expect(quantizeTensor([1], 1, 0, 'int4')).toBeInstanceOf(Int8Array);
    expect(quantizeTensor([1], 1, 0, 'uint4')).toBeInstanceOf(Uint8Array);
    expect(quantizeTensor([1], 1, 0, 'int32')).toBeInstanceOf(Int32Array);
  });
  it('per channel along axis 1 of [1,3,3,2]: the ONNX QuantizeLinear spec vector (test_quantizelinear_axis)', () => {
    const x = [-162, 10, -100, 232, -20, -50, -76, 0, 0, 252, 32, -44, 245, -485, -960, -270, -375, -470];
    const q = quantizeTensor(Float32Array.from(x), [2, 4, 5], [84, 24, 196], 'uint8', 1, [1, 3, 3, 2]);
    expect(q).toBeInstanceOf(Uint8Array);
    expect(Array.from(q)).toEqual([3, 89, 34, 200, 74, 59, 5, 24, 24, 87, 32, 13, 245, 99, 4, 142, 121, 102]);
  });
  it('rejects mismatched scales, zero points and channels', () => {
    expect(() => quantizeTensor([1, 2], [1, 1], [0], 'int8', 0, [2])).toThrow(RangeError);
    expect(() => quantizeTensor([1, 2], [1, 1], [0, 0], 'int8')).toThrow(RangeError);
    expect(() => quantizeTensor([1, 2, 3], [1, 1], [0, 0], 'int8', 0, [3])).toThrow(RangeError);
  });
});

describe('quantizeBias (ORT quantize_bias_static_impl)', () => {
  it('scale = float32(inputScale × weightScale), zero point 0', () => {
    // 0.5 × 0.01 = f32 0.004999999888 → 1 / that = 200.0000045 → 200
    expect(Array.from(biasScales(0.5, [0.01, 0.02]))).toEqual([f32(0.5 * 0.01), f32(0.5 * 0.02)]);
    expect(Array.from(quantizeBias(new Float32Array([1, -2]), 0.5, [0.01, 0.02]))).toEqual([200, -200]);
  });
  it('one weight scale applies to every element; ties round to even', () => {
    // scale 0.5 × 0.5 = 0.25: 0.375/0.25 = 1.5 → 2, 0.625/0.25 = 2.5 → 2, -0.375 → -2
    expect(Array.from(quantizeBias([0.375, 0.625, -0.375], 0.5, [0.5]))).toEqual([2, 2, -2]);
  });
  it('saturates to int32; a zero scale saturates ±b and gives 0 for b = 0', () => {
    expect(Array.from(quantizeBias([1e10, -1e10], 1e-3, [1]))).toEqual([2147483647, -2147483648]);
    expect(Array.from(quantizeBias([1, -1, 0], 0, [1]))).toEqual([2147483647, -2147483648, 0]);
  });
  it('rejects a weight-scale count that is neither 1 nor the bias length', () => {
    expect(() => quantizeBias([1, 2, 3], 1, [1, 1])).toThrow(RangeError);
  });
});

describe('adjustWeightScalesForInt32Bias (ORT _adjust_weight_scale_for_int32_bias)', () => {
  it('enlarges a per-tensor weight scale whose bias scale cannot hold the bias', () => {
    // ORT's own test case: weights ±1e-7 → weight scale 2e-7/254 ≈ 7.87e-10, input scale 0.05,
    // bias [5, -4.5]: 5 / (0.05 × 7.87e-10) ≈ 1.27e11 would saturate int32.
    const bias = [5, -4.5];
    const [w] = adjustWeightScalesForInt32Bias(bias, 0.05, [f32(2e-7 / 254)]);
    const expected = (1.0001 * 2 * 5) / (2 ** 32 - 2) / 0.05; // smallest valid bias scale / input scale
    expect(w / expected).toBeCloseTo(1, 6); // equal up to float32 rounding
    const q = quantizeBias(bias, 0.05, [w]);
    expect(Math.abs(q[0])).toBeLessThan(2147483647);
  });
  it('per channel, each scale against its own |bias|; scales already large enough are kept', () => {
    const out = adjustWeightScalesForInt32Bias([5, 0.001], 0.05, [f32(1e-12), 0.01]);
    expect(out[0] / ((1.0001 * 2 * 5) / (2 ** 32 - 2) / 0.05)).toBeCloseTo(1, 6);
    expect(out[1]).toBe(f32(0.01));
  });
});
