/** TunedLayerMemo: outcomes kept by key within a byte budget, codes given back exactly whatever array kept them. */
import { describe, expect, it } from 'vitest';
import { TunedLayerMemo } from './tunedLayerMemo.ts';

describe('TunedLayerMemo', () => {
  it('gives back the codes it was given, in a fresh Int32Array, whatever their range', () => {
    const memo = new TunedLayerMemo();
    const sets = [Int32Array.of(-128, 0, 127), Int32Array.of(-129, 300), Int32Array.of(-40000, 70000, 2 ** 31 - 1)];
    sets.forEach((codes, i) => memo.set(`k${i}`, { codes, bias: Float32Array.of(i) }));
    sets.forEach((codes, i) => {
      const got = memo.get(`k${i}`)!;
      expect(got.codes).toBeInstanceOf(Int32Array);
      expect(got.codes).toEqual(codes);
      expect(got.codes).not.toBe(codes);
      expect(got.bias).toEqual(Float32Array.of(i));
    });
    expect(memo.get('other')).toBeUndefined();
    expect(memo.hits).toBe(3);
  });

  it('keeps 8-bit codes in a byte each, and refuses what does not fit its budget', () => {
    const memo = new TunedLayerMemo(256 + 1000);
    memo.set('a', { codes: new Int32Array(1000).fill(-3) });
    expect(memo.size).toBe(256 + 1000);
    memo.set('b', { shiftBefore: 0.5 });
    expect(memo.refused).toBe(1);
    expect(memo.get('b')).toBeUndefined();
    // The same key again is neither kept twice nor refused.
    memo.set('a', { codes: new Int32Array(1000) });
    expect(memo.refused).toBe(1);
    expect(memo.get('a')!.codes![0]).toBe(-3);
  });
});
