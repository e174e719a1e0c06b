import { describe, expect, it } from 'vitest';
import { HELD_IN_FIGURE, heldInSummary } from './calibrationMethodChoice.ts';

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
