import { describe, expect, it } from 'vitest';
import { MIN_EXPONENT, createHistogram, foldIntoHistogram, mergeHistograms, minimalExponent } from './histogram.ts';
import { randomPartition, unevenBatches } from '../testData.ts';

const f32 = (xs: number[]) => Float32Array.from(xs);

describe('canonical histogram layout', () => {
  it('uses the narrowest power-of-two width at which the range fits the capacity', () => {
    // [0, 3] at width 1: floor(3) − floor(0) + 1 = 4 bins ≤ 4; at width 1/2 it would take 7 − 0 + 1 = 8.
    const h = foldIntoHistogram(createHistogram(4), f32([0, 1, 2, 3]));
    expect(h.exponent).toBe(0);
    expect(h.offset).toBe(0);
    expect(Array.from(h.bins)).toEqual([1, 1, 1, 1]);
  });

  it('doubles the width, merging aligned pairs, when a batch widens the range', () => {
    // [0, 7]: width 1 needs 8 bins; width 2 needs floor(3.5) − 0 + 1 = 4. {0,1} → bin 0, {2,3} → 1, 7 → 3.
    const h = foldIntoHistogram(foldIntoHistogram(createHistogram(4), f32([0, 1, 2, 3])), f32([7]));
    expect(h.exponent).toBe(1);
    expect(Array.from(h.bins)).toEqual([2, 2, 0, 1]);
    expect([h.min, h.max, h.count]).toEqual([0, 7, 5]);
  });

  it('shifts the window when the minimum moves down at the same width', () => {
    // [-1, 2] at width 1: floor(2) − floor(−1) + 1 = 4 bins, offset −1.
    const h = foldIntoHistogram(foldIntoHistogram(createHistogram(4), f32([0, 2])), f32([-1]));
    expect([h.exponent, h.offset]).toEqual([0, -1]);
    expect(Array.from(h.bins)).toEqual([1, 1, 0, 1]);
  });

  it('gives a single repeated value the finest width', () => {
    const h = foldIntoHistogram(createHistogram(16), f32([0.75, 0.75, 0.75]));
    expect(h.exponent).toBe(MIN_EXPONENT);
    expect(h.bins[0]).toBe(3);
    expect(minimalExponent(0.75, 0.75, 16)).toBe(MIN_EXPONENT);
  });

  it('folds |x| into an abs histogram but keeps the signed extremes', () => {
    const h = foldIntoHistogram(createHistogram(8, true), f32([-3, 1, -0.5, 2]));
    expect([h.min, h.max]).toEqual([0.5, 3]);
    expect([h.valueMin, h.valueMax]).toEqual([-3, 2]);
    expect(h.count).toBe(4);
  });

  it('skips and counts NaN and ±Infinity', () => {
    const h = foldIntoHistogram(createHistogram(8), f32([1, NaN, -Infinity, 2, Infinity]));
    expect([h.count, h.nonFinite, h.min, h.max]).toEqual([2, 3, 1, 2]);
    const empty = foldIntoHistogram(createHistogram(8), f32([NaN]));
    expect([empty.count, empty.nonFinite, empty.min]).toEqual([0, 1, Infinity]);
  });

  it('counts a batch inside the layout in one pass, and one with NaN, ±Infinity or new extremes in two, the same as whole', () => {
    for (const abs of [false, true]) {
      const first = f32([-8, -3, 0.5, 2, 7]);
      for (const later of [
        f32([1, -2, 3.5]),
        f32([1, NaN, -2]),
        f32([1, Infinity, -2]),
        f32([-Infinity, 0.25]),
        f32([30, 1, -0.125]),
        f32([NaN]),
      ]) {
        const sequential = foldIntoHistogram(foldIntoHistogram(createHistogram(16, abs), first), later);
        const whole = foldIntoHistogram(createHistogram(16, abs), f32([...first, ...later]));
        expect(sequential).toEqual(whole);
      }
    }
  });

  it('does not remember which zero came first', () => {
    const a = foldIntoHistogram(createHistogram(8), f32([-0, 0, 1]));
    const b = foldIntoHistogram(createHistogram(8), f32([0, -0, 1]));
    expect(a).toEqual(b);
    expect(Object.is(a.min, 0)).toBe(true);
  });

  it('rejects a capacity under 2', () => {
    expect(() => createHistogram(1)).toThrow(RangeError);
  });
});

describe('merging histograms', () => {
  const batches = unevenBatches(12, 3000, 11);

  function fold(bs: Float32Array[], abs: boolean) {
    return bs.reduce((h, b) => foldIntoHistogram(h, b), createHistogram(1024, abs));
  }

  for (const abs of [false, true]) {
    it(`is bit-identical to one sequential fold, in any order and grouping (abs: ${abs})`, () => {
      const whole = fold(batches, abs);
      for (let seed = 1; seed <= 6; seed++) {
        const groups = randomPartition(batches, 1 + (seed % 4), seed);
        const merged = groups.map((g) => fold(g, abs)).reduce((a, b) => mergeHistograms(a, b));
        expect(merged).toEqual(whole);
      }
    });
  }

  it('leaves its inputs untouched and accepts empty sides', () => {
    const a = fold(batches.slice(0, 3), false);
    const before = structuredClone(a);
    const m = mergeHistograms(a, createHistogram(1024));
    expect(a).toEqual(before);
    expect(m).toEqual(a);
  });

  it('refuses histograms of different capacity or kind', () => {
    expect(() => mergeHistograms(createHistogram(8), createHistogram(16))).toThrow(RangeError);
    expect(() => mergeHistograms(createHistogram(8), createHistogram(8, true))).toThrow(RangeError);
  });
});
