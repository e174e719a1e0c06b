import { describe, expect, it } from 'vitest';
import { HELD_IN_FIGURE, heldInSummary, JUDGED_ONLY } from './calibrationMethodChoice.ts';
import { outputMetrics } from './outputMetrics.ts';
import { ZERO_OUTPUT } from '../metrics/index.ts';

describe('heldInSummary', () => {
  it('says what it judged by and names the judged samples a method zeroed; no NaN is left to compare', () => {
    const line = heldInSummary({
      chosen: 'Percentile',
      measured: [
        { method: 'MinMax', cosine: 0.22086, allZero: 1 },
        { method: 'Percentile', cosine: 0.58271, allZero: 0 },
      ],
      calibrated: 4,
      judged: 3,
    });
    expect(line).toBe('MinMax 0.22086 (quantized output all zeros on 1 judged), Percentile 0.58271 → Percentile');
    expect(HELD_IN_FIGURE).toContain('an all-zero quantized output counting 0');
  });
});

describe('the judge of the held-in choice', () => {
  it('measures the same cosine and all-zero flag without the metrics it does not read (no SSIM on a map)', () => {
    const dims = [1, 1, 32, 32];
    const reference = Float32Array.from({ length: 32 * 32 }, (_, i) => Math.sin(i / 7) * 3 + 0.5);
    const quantized = reference.map((v, i) => Math.round(v * 8) / 8 + (i % 5 === 0 ? 0.01 : 0));
    const zeroed = new Float32Array(reference.length);
    for (const test of [quantized, zeroed]) {
      const full = outputMetrics(reference, test, dims);
      const judged = outputMetrics(reference, test, dims, JUDGED_ONLY);
      expect(full.ssim).toBeDefined();
      expect(judged.ssim).toBeUndefined();
      expect(full.psnr).toBeDefined();
      expect([judged.l2, judged.mse, judged.psnr, judged.peak]).toEqual([undefined, undefined, undefined, undefined]);
      expect(judged.cosine).toBe(full.cosine);
      expect(judged[ZERO_OUTPUT]).toBe(full[ZERO_OUTPUT]);
    }
  });
});
