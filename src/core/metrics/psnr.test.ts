import { describe, expect, it } from 'vitest';
import { MetricInputError } from './input.ts';
import { meanSquaredError, psnr, PSNR_EPSILON } from './psnr.ts';

const f32 = (values: number[]) => new Float32Array(values);

describe('psnr (Quark calculate_psnr: 20·log10(max(reference)) − 10·log10(mse))', () => {
  it('matches a hand-computed case', () => {
    // reference [1, 2, 3, 4], test [1, 2, 3, 5]: mse = (0 + 0 + 0 + 1²) / 4 = 0.25; peak = max(ref) = 4
    // 20·log10(4) = 12.041199826559248; −10·log10(0.25) = +6.020599913279624; sum 18.061799739838872
    expect(psnr(f32([1, 2, 3, 4]), f32([1, 2, 3, 5]))).toBeCloseTo(18.061799739838872, 12);
  });

  it('reads the peak from the first (reference) argument only', () => {
    // Swapped, the peak is max([1, 2, 3, 5]) = 5: 20·log10(5) + 10·log10(4) = 20·log10(5) + 20·log10(2)
    // = 20·log10(10) = 20 dB exactly.
    expect(psnr(f32([1, 2, 3, 5]), f32([1, 2, 3, 4]))).toBeCloseTo(20, 12);
  });

  it('floors an mse of exactly zero at 1e-10, so identical outputs give 20·log10(peak) + 100 dB', () => {
    // peak 1: 0 + 100 = 100 dB; peak 255: 20·log10(255) + 100 = 48.1308036… + 100 = 148.1308036…
    expect(psnr(f32([0, 0.5, 1]), f32([0, 0.5, 1]))).toBeCloseTo(100, 12);
    expect(psnr(f32([0, 128, 255]), f32([0, 128, 255]))).toBeCloseTo(148.13080360867912, 10);
    expect(PSNR_EPSILON).toBe(1e-10);
  });

  it('gives +Infinity for identical outputs when the floor is switched off', () => {
    expect(psnr(f32([1, 2]), f32([1, 2]), { mseFloor: 0 })).toBe(Infinity);
  });

  it('floors only an exact zero: a tiny non-zero error scores above identical outputs (Quark quirk)', () => {
    // One float32 ulp above 1 is 2^-23 = 1.1920929e-7; mse = (2^-23)² = 1.42e-14 over one element;
    // peak 1 → −10·log10(1.42e-14) = 138.4737980… dB, more than the 100 dB of an exact match.
    const one = f32([1]);
    const next = f32([1 + 2 ** -23]);
    expect(psnr(one, next)).toBeCloseTo(138.47379800543135, 8);
    expect(psnr(one, next)).toBeGreaterThan(psnr(one, one));
  });

  it('replaces a peak ≤ 0 by 1e-10, as Quark does', () => {
    // reference [−1, −2], test [−1, −3]: mse = 1/2; peak → 1e-10: 20·(−10) − 10·log10(0.5) = −200 + 3.0103
    expect(psnr(f32([-1, -2]), f32([-1, -3]))).toBeCloseTo(-196.9897000433602, 10);
  });

  it('takes an explicit peak for textbook image PSNR', () => {
    // reference [0, 10], test [0, 0]: mse = 100 / 2 = 50; 20·log10(255) − 10·log10(50) = 48.1308 − 16.9897
    expect(psnr(f32([0, 10]), f32([0, 0]), { peak: 255 })).toBeCloseTo(31.141103565318915, 10);
  });

  it('gives NaN for NaN in either output and for empty outputs', () => {
    expect(psnr(f32([1, NaN]), f32([1, 2]))).toBeNaN();
    expect(psnr(f32([1, 2]), f32([1, NaN]))).toBeNaN();
    expect(psnr(f32([]), f32([]))).toBeNaN();
  });

  it('rejects nonsense options and mismatched sizes', () => {
    expect(() => psnr(f32([1]), f32([1]), { peak: 0 })).toThrow(MetricInputError);
    expect(() => psnr(f32([1]), f32([1]), { mseFloor: -1 })).toThrow(MetricInputError);
    expect(() => psnr(f32([1]), f32([1, 2]))).toThrow(MetricInputError);
  });
});

describe('meanSquaredError', () => {
  it('averages squared differences', () => {
    // (1² + 2² + 0²) / 3 = 5/3
    expect(meanSquaredError(f32([1, 2, 3]), f32([0, 0, 3]))).toBeCloseTo(5 / 3, 14);
  });
});
