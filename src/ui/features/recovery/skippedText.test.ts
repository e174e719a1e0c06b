/** The not-tried line says budget only where the budget skipped a rung. */
import { describe, expect, it } from 'vitest';
import { skippedText } from './skippedText.ts';

const win = { reason: 'CLE finds no pair of layers to equalize in this model' };
const fit = { reason: 'over the time budget: estimated 12 s (like rung 2), 3 s of 15 s left' };

describe('skippedText', () => {
  it('names why, apart', () => {
    expect(skippedText([win])).toBe('1 rung not tried: measurement said it could not win');
    expect(skippedText([win, win])).toBe('2 rungs not tried: measurement said they could not win');
    expect(skippedText([fit])).toBe('1 rung not tried: it could not fit in the time budget');
    expect(skippedText([win, fit, fit])).toBe(
      '3 rungs not tried: measurement said 1 could not win; 2 could not fit in the time budget',
    );
  });
});
