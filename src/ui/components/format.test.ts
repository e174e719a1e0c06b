import { describe, expect, it } from 'vitest';
import { exact, formatBytes, formatCount, plural } from './format.ts';

describe('formatBytes', () => {
  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [1000, '1.00 kB'],
    [26454, '26.5 kB'],
    [1270727, '1.27 MB'],
    [3660092, '3.66 MB'],
    [252_000_000, '252 MB'],
    [4_100_000_000, '4.10 GB'],
  ])('%d bytes reads "%s"', (bytes, text) => expect(formatBytes(bytes)).toBe(text));
});

describe('formatCount', () => {
  it.each([
    [369, '369'],
    [9999, '9,999'],
    [307683, '308 K'],
    [59712, '59.7 K'],
    [1171841, '1.17 M'],
    [7_000_000_000, '7.00 B'],
  ])('%d reads "%s"', (n, text) => expect(formatCount(n)).toBe(text));
});

describe('exact and plural', () => {
  it('separates thousands and picks the singular for one', () => {
    expect(exact(1234567)).toBe('1,234,567');
    for (const n of [0, 7, 999, 1000, 12345, 123456, -1234567, 9_007_199_254_740_991])
      expect(exact(n)).toBe(n.toLocaleString('en-US'));
    expect(plural(1, 'node')).toBe('1 node');
    expect(plural(1200, 'node')).toBe('1,200 nodes');
  });
});
