/** The one rule every number field of the page reads its text by: the values it passes on and the problem's words. */
import { describe, expect, it } from 'vitest';
import { numberRuleText, readNumberText } from './NumberField.tsx';

describe('readNumberText', () => {
  const share = { min: 0, above: true, max: 1, optional: 'every layer' };
  it('passes a value in range, and empty where optional', () => {
    expect(readNumberText(' 0.5 ', share)).toBe(0.5);
    expect(readNumberText('1', share)).toBe(1);
    expect(readNumberText('', share)).toBeNull();
  });
  it('refuses text that is not a number, out of range, the excluded minimum, or empty where not optional', () => {
    for (const t of ['abc', '1.5', '0', '-3', 'Infinity', '1e999']) expect(readNumberText(t, share)).toBeUndefined();
    expect(readNumberText('', { min: 1 })).toBeUndefined();
  });
  it('refuses a fraction where a whole number is asked', () => {
    expect(readNumberText('2.5', { min: 1, integer: true })).toBeUndefined();
    expect(readNumberText('3', { min: 1, integer: true })).toBe(3);
  });
});

describe('numberRuleText', () => {
  it('says the range, the example and the way out', () => {
    expect(numberRuleText({ min: 1, max: 50, integer: true })).toBe('a whole number from 1 to 50');
    expect(numberRuleText({ min: 1, integer: true })).toBe('a whole number of at least 1');
    expect(numberRuleText({ min: 0, above: true, what: 'minutes', hint: '0.5 is 30 s', optional: 'none' })).toBe(
      'minutes above zero (0.5 is 30 s), or leave it empty for none',
    );
    expect(numberRuleText({ min: -1, above: true, max: 1 })).toBe('a number from -1 (excluded) to 1');
  });
});
