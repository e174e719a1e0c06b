import { describe, expect, it } from 'vitest';
import { gaussianBlur, gaussianKernel, reflect101, SSIM_SIGMA, SSIM_WINDOW } from './gaussian.ts';

const kernel = gaussianKernel(SSIM_WINDOW, SSIM_SIGMA);

/** Unnormalised tap at offset d from the centre: exp(−d² / (2·1.5²)) = exp(−d² / 4.5). */
const tap = (d: number) => Math.exp(-(d * d) / 4.5);
/** Sum of the 11 unnormalised taps: 1 + 2·(e^(−1/4.5) + e^(−4/4.5) + e^(−9/4.5) + e^(−16/4.5) + e^(−25/4.5)). */
const tapSum = [-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5].reduce((s, d) => s + tap(d), 0);

describe('gaussianKernel (cv2.getGaussianKernel(11, 1.5))', () => {
  it('has 11 symmetric taps that sum to 1', () => {
    expect(kernel.length).toBe(11);
    expect(kernel.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 15);
    for (let i = 0; i < 5; i++) expect(kernel[i]).toBe(kernel[10 - i]);
  });

  it('follows exp(−d²/2σ²), scaled', () => {
    // tapSum = 1 + 2·(0.800737 + 0.411112 + 0.135335 + 0.028566 + 0.003866) = 3.759232…
    expect(tapSum).toBeCloseTo(3.759232, 5);
    for (let d = 0; d <= 5; d++) expect(kernel[5 + d]).toBeCloseTo(tap(d) / tapSum, 15);
  });

  it("equals OpenCV's kernel (values printed by cv2.getGaussianKernel(11, 1.5, cv2.CV_64F), OpenCV 5.0)", () => {
    const opencv = [
      0.0010283800844791097, 0.007598758135239182, 0.03600077212843082, 0.10936068950970002, 0.21300553771125372,
      0.2660117248617943,
    ];
    for (let i = 0; i < opencv.length; i++) expect(kernel[i]).toBeCloseTo(opencv[i], 15);
  });

  it('rejects even sizes and non-positive sigma', () => {
    expect(() => gaussianKernel(10, 1.5)).toThrow(RangeError);
    expect(() => gaussianKernel(11, 0)).toThrow(RangeError);
  });
});

describe('reflect101 (BORDER_REFLECT_101: … c b | a b c d | c b …)', () => {
  it('mirrors around the edge pixel without repeating it', () => {
    // length 5 (a b c d e): −1 → b, −2 → c, 5 → d, 6 → c
    expect([-1, -2, 5, 6].map((p) => reflect101(p, 5))).toEqual([1, 2, 3, 2]);
    expect([0, 4].map((p) => reflect101(p, 5))).toEqual([0, 4]);
  });

  it('keeps folding on axes shorter than the window', () => {
    // length 3 repeats 0 1 2 1 | 0 1 2 1 …: −1 → 1, −2 → 2, −3 → 1, −4 → 0, −7 → 1, 5 → 1, 7 → 1
    expect([-1, -2, -3, -4, -7, 5, 7].map((p) => reflect101(p, 3))).toEqual([1, 2, 1, 0, 1, 1, 1]);
    // length 2 alternates: −1 → 1, −2 → 0, 2 → 0, 3 → 1
    expect([-1, -2, 2, 3].map((p) => reflect101(p, 2))).toEqual([1, 0, 0, 1]);
  });

  it('reads pixel 0 on a 1-pixel axis', () => {
    expect([-5, -1, 0, 1, 5].map((p) => reflect101(p, 1))).toEqual([0, 0, 0, 0, 0]);
  });
});

describe('gaussianBlur', () => {
  it('leaves a constant plane unchanged', () => {
    const plane = new Float64Array(4 * 7).fill(3.25);
    for (const v of gaussianBlur(plane, 4, 7, kernel)) expect(v).toBeCloseTo(3.25, 13);
  });

  it('spreads a centred impulse as the outer product of the kernel with itself', () => {
    // 21×21 plane, 1 at (10, 10): the blur at (10 + dy, 10 + dx) is k[5 + dy]·k[5 + dx]; beyond ±5 it is 0.
    const plane = new Float64Array(21 * 21);
    plane[10 * 21 + 10] = 1;
    const out = gaussianBlur(plane, 21, 21, kernel);
    expect(out[10 * 21 + 10]).toBeCloseTo(kernel[5] * kernel[5], 15);
    expect(out[10 * 21 + 11]).toBeCloseTo(kernel[5] * kernel[6], 15);
    expect(out[13 * 21 + 8]).toBeCloseTo(kernel[8] * kernel[3], 15);
    expect(out[0]).toBe(0);
  });

  it('on a 1×2 plane [1, 0], gives each pixel the weight of the even offsets, by reflection', () => {
    // Reflect-101 on 2 pixels makes the row … 1 0 1 0 [1 0] 1 0 …: pixel 0 sees 1 at offsets 0, ±2, ±4
    // and 0 at the odd ones; pixel 1 the reverse. So blur = [even, odd] with
    // even = (1 + 2·(e^(−4/4.5) + e^(−16/4.5))) / tapSum = 1.879356 / 3.759232 = 0.4999306…
    // odd  = 2·(e^(−1/4.5) + e^(−9/4.5) + e^(−25/4.5)) / tapSum = 0.5000694…
    const even = (tap(0) + 2 * (tap(2) + tap(4))) / tapSum;
    const odd = (2 * (tap(1) + tap(3) + tap(5))) / tapSum;
    const out = gaussianBlur(Float64Array.from([1, 0]), 1, 2, kernel);
    expect(out[0]).toBeCloseTo(even, 15);
    expect(out[1]).toBeCloseTo(odd, 15);
    // cv2.GaussianBlur(np.array([[1, 0]], np.float32), (11, 11), 1.5) prints [[0.49993062 0.5000694]].
    expect(out[0]).toBeCloseTo(0.49993062, 7);
    expect(out[1]).toBeCloseTo(0.5000694, 7);
  });

  it('commutes with transposition (same window both ways)', () => {
    const h = 4;
    const w = 7;
    const plane = Float64Array.from({ length: h * w }, (_, i) => Math.sin(i * 1.3) * 10);
    const transposed = new Float64Array(h * w);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) transposed[x * h + y] = plane[y * w + x];
    const a = gaussianBlur(plane, h, w, kernel);
    const b = gaussianBlur(transposed, w, h, kernel);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) expect(b[x * h + y]).toBeCloseTo(a[y * w + x], 12);
  });

  it('leaves its input untouched', () => {
    const plane = Float64Array.from([1, 2, 3, 4]);
    gaussianBlur(plane, 2, 2, kernel);
    expect([...plane]).toEqual([1, 2, 3, 4]);
  });
});
