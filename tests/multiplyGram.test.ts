/**
 * The TypeScript Gram product (core/recovery/layerProblem.ts multiplyGram, the depthwise layers' full product), two
 * rows of G at a time, against the one-row loop as written before (kept here verbatim): the same values bit for bit,
 * into float64 and float32 outputs, for k odd and even, one to three vectors, an offset start, with −0, ties of sign,
 * huge, tiny, infinite and NaN entries among them.
 */
import { describe, expect, it } from 'vitest';
import { multiplyGram } from '../src/core/recovery/layerProblem.ts';
import { seededFloats } from './helpers/fixtures.ts';

/** multiplyGram as written before the two-row loop. */
function multiplyGramAsBefore(
  gram: Float64Array,
  k: number,
  v: Float64Array,
  first: number,
  count: number,
  gv: Float64Array | Float32Array,
): void {
  for (let i = 0; i < k; i++) {
    const row = i * k;
    for (let j = 0; j < count; j++) {
      const off = first + j * k;
      let s0 = 0,
        s1 = 0;
      let l = 0;
      for (; l + 1 < k; l += 2) {
        s0 += gram[row + l] * v[off + l];
        s1 += gram[row + l + 1] * v[off + l + 1];
      }
      if (l < k) s0 += gram[row + l] * v[off + l];
      gv[j * k + i] = s0 + s1;
    }
  }
}

function bits(a: Float64Array | Float32Array): string[] {
  return Array.from(a, (x) => (Object.is(x, -0) ? '-0' : String(x)));
}

describe('the two-row Gram product', () => {
  for (const k of [1, 2, 3, 7, 26, 27, 64]) {
    it(`k = ${k}: the same values bit for bit as the one-row loop`, () => {
      for (let seed = 1; seed <= 5; seed++) {
        const gram = Float64Array.from(seededFloats(k * k, seed, -1, 1), (x, i) => x * 10 ** ((i % 7) - 3));
        const count = 1 + (seed % 3);
        const first = seed % 2 === 0 ? 5 : 0;
        const v = Float64Array.from(seededFloats(first + count * k, seed + 50, -2, 2));
        const specials = [-0, 0, 1e300, -1e-300, 3, -3];
        specials.forEach((x, i) => {
          if (first + i * 3 < v.length) v[first + i * 3] = x;
        });
        if (seed === 4) v[v.length - 1] = Infinity;
        if (seed === 5) gram[k * k - 1] = NaN;
        for (const Out of [Float64Array, Float32Array]) {
          const got = new Out(count * k);
          const want = new Out(count * k);
          multiplyGram(gram, k, v, first, count, got);
          multiplyGramAsBefore(gram, k, v, first, count, want);
          expect(bits(got)).toEqual(bits(want));
        }
      }
    });
  }

  it('differs where one term of the sum differs (the comparison can fail)', () => {
    const k = 4;
    const gram = Float64Array.from(seededFloats(k * k, 9, -1, 1));
    const v = Float64Array.from(seededFloats(k, 10, -1, 1));
    const got = new Float64Array(k);
    const want = new Float64Array(k);
    multiplyGram(gram, k, v, 0, 1, got);
    gram[k + 2] += 1e-9;
    multiplyGramAsBefore(gram, k, v, 0, 1, want);
    expect(bits(got)).not.toEqual(bits(want));
  });
});
