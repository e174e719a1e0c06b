import { describe, expect, it } from 'vitest';
import { cosineSimilarity, definedCosine, zeroSide } from './cosine.ts';
import { MetricInputError } from './input.ts';

const f32 = (values: number[]) => new Float32Array(values);

describe('cosineSimilarity (Quark calculate_cos: flattened dot / (‖a‖·‖b‖))', () => {
  it('matches a hand-computed pair', () => {
    // a = [1, 2, 3], b = [4, 5, 6]
    // dot = 4 + 10 + 18 = 32; ‖a‖² = 1 + 4 + 9 = 14; ‖b‖² = 16 + 25 + 36 = 77
    // cos = 32 / sqrt(14 · 77) = 32 / sqrt(1078) = 32 / 32.8329103… = 0.9746318461970762
    expect(cosineSimilarity(f32([1, 2, 3]), f32([4, 5, 6]))).toBeCloseTo(0.9746318461970762, 14);
  });

  it('is exactly 1 for x and 2x, and exactly -1 for x and -x', () => {
    const x = f32([0.3, -1.7, 2.25, 1e-3, 42]);
    const twice = x.map((v) => 2 * v);
    const negated = x.map((v) => -v);
    expect(cosineSimilarity(x, twice)).toBe(1);
    expect(cosineSimilarity(x, x)).toBe(1);
    expect(cosineSimilarity(x, negated)).toBe(-1);
  });

  it('is 0 for orthogonal outputs', () => {
    // dot = 1·0 + 0·1 + 2·0 = 0
    expect(cosineSimilarity(f32([1, 0, 2]), f32([0, 1, 0]))).toBe(0);
  });

  it('ignores the scale of either side', () => {
    const a = f32([1, 2, 3]);
    expect(cosineSimilarity(a, f32([12, 15, 18]))).toBeCloseTo(cosineSimilarity(a, f32([4, 5, 6])), 14);
  });

  it('gives NaN for a zero vector on either side, as 0 / 0 does in numpy', () => {
    expect(cosineSimilarity(f32([0, 0, 0]), f32([1, 2, 3]))).toBeNaN();
    expect(cosineSimilarity(f32([1, 2, 3]), f32([0, 0, 0]))).toBeNaN();
    expect(cosineSimilarity(f32([0, 0]), f32([0, 0]))).toBeNaN();
    expect(cosineSimilarity(f32([]), f32([]))).toBeNaN();
  });

  it('gives NaN when any element is NaN', () => {
    expect(cosineSimilarity(f32([1, NaN, 3]), f32([1, 2, 3]))).toBeNaN();
  });

  it('accumulates in float64, so float32 outputs near the top of the range do not overflow', () => {
    // In float32, 3e38² overflows to inf and Quark's own arithmetic would give inf / inf = NaN.
    const big = f32([3e38, 3e38, -3e38]);
    expect(cosineSimilarity(big, big)).toBe(1);
  });

  it('refuses outputs of different sizes with a named error', () => {
    expect(() => cosineSimilarity(f32([1, 2]), f32([1, 2, 3]))).toThrow(MetricInputError);
    try {
      cosineSimilarity(f32([1]), f32([]));
    } catch (e) {
      expect((e as Error).name).toBe('MetricInputError');
    }
  });
});

describe('definedCosine (Quark where defined; an all-zero side read as the documentation reads the figure)', () => {
  it("is Quark's cosine where neither side is all zeros", () => {
    expect(definedCosine(f32([1, 2, 3]), f32([4, 5, 6]))).toBeCloseTo(0.9746318461970762, 14);
    expect(definedCosine(f32([1, 0]), f32([0, 1]))).toBe(0);
  });

  it('is 0 for an all-zero output against a non-zero one, 1 for two all-zero outputs', () => {
    expect(definedCosine(f32([0.2, 0.9, 0]), f32([0, 0, 0]))).toBe(0);
    expect(definedCosine(f32([0, 0, 0]), f32([1, 2, 3]))).toBe(0);
    expect(definedCosine(f32([0, 0]), f32([0, 0]))).toBe(1);
    expect(definedCosine(f32([-0, 0]), f32([0, -0]))).toBe(1);
  });

  it('still gives NaN for a NaN element, and names the all-zero side', () => {
    expect(definedCosine(f32([1, NaN]), f32([0, 0]))).toBe(0); // the quantized side is zeros: nothing kept
    expect(definedCosine(f32([1, NaN]), f32([1, 2]))).toBeNaN();
    expect(zeroSide(f32([1, 2]), f32([0, 0]))).toBe('test');
    expect(zeroSide(f32([0, 0]), f32([0, 3]))).toBe('reference');
    expect(zeroSide(f32([0, 0]), f32([0, 0]))).toBe('both');
    expect(zeroSide(f32([0, 1]), f32([2, 0]))).toBeNull();
  });
});
