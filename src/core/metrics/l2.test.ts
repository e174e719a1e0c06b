import { describe, expect, it } from 'vitest';
import { MetricInputError } from './input.ts';
import { l2Distance } from './l2.ts';

const f32 = (values: number[]) => new Float32Array(values);

describe('l2Distance (Quark calculate_l2_distance: np.linalg.norm(x − y), not normalised)', () => {
  it('matches a hand-computed 3-4-5 triangle', () => {
    // differences: 1−4 = −3, 2−6 = −4, 3−3 = 0 → sqrt(9 + 16 + 0) = 5
    expect(l2Distance(f32([1, 2, 3]), f32([4, 6, 3]))).toBe(5);
  });

  it('is 0 for identical outputs and for empty ones', () => {
    const x = f32([0.5, -2, 7]);
    expect(l2Distance(x, x)).toBe(0);
    expect(l2Distance(f32([]), f32([]))).toBe(0);
  });

  it('is not divided by the element count: the same per-element error grows with size', () => {
    // 4 elements off by 1: sqrt(4) = 2; 16 elements off by 1: sqrt(16) = 4
    expect(l2Distance(new Float32Array(4), new Float32Array(4).fill(1))).toBe(2);
    expect(l2Distance(new Float32Array(16), new Float32Array(16).fill(1))).toBe(4);
  });

  it('is symmetric', () => {
    const a = f32([1.5, -3, 8]);
    const b = f32([2, -1, 7.25]);
    expect(l2Distance(a, b)).toBe(l2Distance(b, a));
  });

  it('propagates NaN and infinities as numpy does', () => {
    expect(l2Distance(f32([NaN, 1]), f32([0, 1]))).toBeNaN();
    expect(l2Distance(f32([Infinity, 1]), f32([0, 1]))).toBe(Infinity);
    expect(l2Distance(f32([Infinity]), f32([Infinity]))).toBeNaN();
  });

  it('refuses outputs of different sizes', () => {
    expect(() => l2Distance(f32([1]), f32([1, 2]))).toThrow(MetricInputError);
  });
});
