import { describe, expect, it } from 'vitest';
import { MetricInputError } from './input.ts';
import { ssim, SSIM_EPSILON } from './ssim.ts';

// C1 = (0.01·255)² = 6.5025, C2 = (0.03·255)² = 58.5225 (quark/onnx/tools/evaluate.py calculate_ssim)
const C1 = 6.5025;
const C2 = 58.5225;

/** A deterministic, non-trivial plane of `n` values in [0, 255). */
const wavy = (n: number, phase = 0) =>
  Float32Array.from({ length: n }, (_, i) => 127.5 + 127 * Math.sin(i * 0.7 + phase));

describe('ssim, Quark variant (raw second moments, 11×11 Gaussian σ 1.5, C1/C2 for 0..255)', () => {
  it('is 1 for identical outputs, up to the 1e-10 guard', () => {
    // map = N / (N + 1e-10) with N ≥ C1·C2 ≈ 380.5, so 1 − map < 3e-13.
    const a = wavy(6 * 9);
    expect(ssim(a, a, [6, 9])).toBeCloseTo(1, 12);
    expect(ssim(a, a, [6, 9], { variant: 'standard' })).toBeCloseTo(1, 12);
    expect(SSIM_EPSILON).toBe(1e-10);
  });

  it('matches a hand-computed pair of constant planes', () => {
    // x ≡ 10, y ≡ 20 on 3×4: every blur of a constant is the constant, so at every pixel
    // μx = 10, μy = 20, Sxx = 100, Syy = 400, Sxy = 200 (raw moments: nothing subtracted).
    // numerator   = (2·10·20 + C1)·(2·200 + C2)   = 406.5025 · 458.5225 = 186390.54255625
    // denominator = (100 + 400 + C1)·(100 + 400 + C2) = 506.5025 · 558.5225 = 282893.04255625
    // SSIM = 186390.54255625 / (282893.04255625 + 1e-10) = 0.6588728406750701
    const x = new Float32Array(12).fill(10);
    const y = new Float32Array(12).fill(20);
    expect((2 * 10 * 20 + C1) * (2 * 200 + C2)).toBeCloseTo(186390.54255625, 8);
    expect(ssim(x, y, [3, 4])).toBeCloseTo(0.6588728406750701, 13);
  });

  it('differs from the standard variant exactly where Quark skips the mean subtraction', () => {
    // Standard, same constants: σx² = 100 − 10² = 0, σy² = 0, σxy = 200 − 10·20 = 0, so
    // SSIM = (400 + C1)·C2 / ((500 + C1)·C2) = 406.5025 / 506.5025 = 0.8025676082546483
    const x = new Float32Array(12).fill(10);
    const y = new Float32Array(12).fill(20);
    expect(ssim(x, y, [3, 4], { variant: 'standard' })).toBeCloseTo(0.8025676082546483, 12);
  });

  it('matches a hand-computed 1×2 case through the reflect-101 border', () => {
    // x = [1, 0], y = [0, 1]. On a 2-pixel row the blur gives pixel 0 the weight `even` of the even
    // offsets and pixel 1 the weight `odd` (see gaussian.test.ts): μx = [even, odd], μy = [odd, even].
    // x² = x and y² = y, so Sxx = μx, Syy = μy; x·y = 0, so Sxy = 0. At either pixel:
    // map = (2·even·odd + C1)·C2 / ((even² + odd² + C1)·(even + odd + C2) + 1e-10), even + odd = 1.
    const tap = (d: number) => Math.exp(-(d * d) / 4.5);
    const total = tap(0) + 2 * (tap(1) + tap(2) + tap(3) + tap(4) + tap(5));
    const even = (tap(0) + 2 * (tap(2) + tap(4))) / total;
    const odd = 1 - even;
    const expected = ((2 * even * odd + C1) * C2) / ((even * even + odd * odd + C1) * (1 + C2) + 1e-10);
    expect(expected).toBeCloseTo(0.9831996276882018, 13);
    expect(ssim(new Float32Array([1, 0]), new Float32Array([0, 1]), [1, 2])).toBeCloseTo(expected, 13);
  });

  it('matches OpenCV running evaluate.py’s formula on a 4×5 plane and a 4×5×3 image', () => {
    // Expected values from cv2.GaussianBlur (OpenCV 5.0.0, float32) and numpy 2.4.6 evaluating
    // calculate_ssim's formula on these arrays; float32 there, float64 here, hence 1e-6.
    const a = [12, 40, 200, 255, 0, 30, 90, 180, 220, 10, 60, 120, 160, 200, 20, 90, 150, 140, 180, 30];
    const b = [10, 44, 196, 250, 3, 33, 88, 185, 215, 12, 58, 125, 158, 205, 18, 95, 147, 141, 176, 35];
    expect(ssim(Float32Array.from(a), Float32Array.from(b), [4, 5])).toBeCloseTo(0.9996477961540222, 6);

    // HWC image whose channels are: the plane, the plane upside down ·0.5, and 255 − the plane.
    const hwc = (p: number[]) => {
      const out = new Float32Array(60);
      for (let y = 0; y < 4; y++) {
        for (let x = 0; x < 5; x++) {
          const i = y * 5 + x;
          out[i * 3] = p[i];
          out[i * 3 + 1] = p[(3 - y) * 5 + x] * 0.5;
          out[i * 3 + 2] = 255 - p[i];
        }
      }
      return out;
    };
    expect(ssim(hwc(a), hwc(b), [4, 5, 3])).toBeCloseTo(0.9996485114097595, 6);
  });

  it('averages over planes: an NCHW pair scores the mean of its planes’ scores', () => {
    const a = wavy(2 * 20);
    const b = wavy(2 * 20, 0.3);
    const first = ssim(a.subarray(0, 20), b.subarray(0, 20), [4, 5]);
    const second = ssim(a.subarray(20), b.subarray(20), [4, 5]);
    expect(ssim(a, b, [1, 2, 4, 5], { layout: 'NCHW' })).toBeCloseTo((first + second) / 2, 14);
  });

  it('depends on the layout: the window never crosses channels', () => {
    const a = wavy(2 * 6 * 6);
    const b = wavy(2 * 6 * 6, 0.5);
    expect(ssim(a, b, [1, 2, 6, 6], { layout: 'NCHW' })).not.toBeCloseTo(
      ssim(a, b, [1, 6, 6, 2], { layout: 'NHWC' }),
      6,
    );
  });

  it('is symmetric in its arguments', () => {
    const a = wavy(30);
    const b = wavy(30, 1);
    expect(ssim(a, b, [5, 6])).toBeCloseTo(ssim(b, a, [5, 6]), 15);
  });

  it('uses dataRange for C1 and C2', () => {
    // With R = 1: C1 = 1e-4, C2 = 9e-4; constants 10 and 20 give
    // (400 + 1e-4)(400 + 9e-4) / ((500 + 1e-4)(500 + 9e-4)) = 0.6400003…
    const x = new Float32Array(4).fill(10);
    const y = new Float32Array(4).fill(20);
    const expected = ((400 + 1e-4) * (400 + 9e-4)) / ((500 + 1e-4) * (500 + 9e-4) + 1e-10);
    expect(ssim(x, y, [2, 2], { dataRange: 1 })).toBeCloseTo(expected, 13);
  });

  it('gives NaN for NaN input and for outputs with no pixels', () => {
    const a = wavy(12);
    const b = Float32Array.from(a);
    b[5] = NaN;
    expect(ssim(a, b, [3, 4])).toBeNaN();
    expect(ssim(new Float32Array(0), new Float32Array(0), [0, 4])).toBeNaN();
  });

  it('rejects mismatched sizes, dims that do not fit, and a bad data range', () => {
    expect(() => ssim(new Float32Array(4), new Float32Array(5), [2, 2])).toThrow(MetricInputError);
    expect(() => ssim(new Float32Array(4), new Float32Array(4), [3, 2])).toThrow(MetricInputError);
    expect(() => ssim(new Float32Array(4), new Float32Array(4), [2, 2], { dataRange: 0 })).toThrow(MetricInputError);
  });
});
