import { describe, expect, it } from 'vitest';
import { argmax, classifierAgreement, topKMatches } from './agreement.ts';
import { MetricInputError } from './input.ts';

const f32 = (values: number[]) => new Float32Array(values);

describe('classifierAgreement (float top-1 class as the label, quantized scored as top-k accuracy)', () => {
  it('agrees on a single [classes] output with the same winner', () => {
    // float argmax = 1 (0.7); quantized argmax = 1 (0.5)
    const result = classifierAgreement(f32([0.1, 0.7, 0.2]), f32([0.2, 0.5, 0.3]), [3]);
    expect(result).toEqual({ rows: 1, top1Matches: 1, top5Matches: 1, top1: 1, top5: 1 });
  });

  it('scores each row of [N, classes] separately', () => {
    // 3 rows × 6 classes.
    // row 0: float winner 2; quantized winner 2            → top-1 ✓, top-5 ✓
    // row 1: float winner 0; quantized ranks 0 third       → top-1 ✗, top-5 ✓ (rank 2 < 5)
    // row 2: float winner 5; quantized ranks 5 last (6th)  → top-1 ✗, top-5 ✗ (rank 5)
    const reference = f32([0, 1, 9, 2, 3, 4, /**/ 9, 1, 2, 3, 4, 5, /**/ 0, 1, 2, 3, 4, 9]);
    const test = f32([0, 1, 8, 2, 3, 4, /**/ 7, 9, 8, 1, 2, 3, /**/ 6, 5, 4, 3, 2, 1]);
    const result = classifierAgreement(reference, test, [3, 6]);
    expect(result.rows).toBe(3);
    expect(result.top1Matches).toBe(1);
    expect(result.top5Matches).toBe(2);
    expect(result.top1).toBeCloseTo(1 / 3, 15);
    expect(result.top5).toBeCloseTo(2 / 3, 15);
  });

  it('treats every axis but the last as rows', () => {
    const reference = f32([1, 0, 0, 1, 1, 0, 0, 1]);
    const test = f32([1, 0, 1, 0, 1, 0, 1, 0]);
    // [2, 2, 2]: 4 rows of 2 classes; winners ref 0,1,0,1 vs test 0,0,0,0 → 2 of 4 agree
    expect(classifierAgreement(reference, test, [2, 2, 2]).top1).toBe(0.5);
  });

  it('always matches top-5 when there are 5 classes or fewer', () => {
    expect(classifierAgreement(f32([5, 1, 1, 1]), f32([1, 2, 3, 4]), [4]).top5).toBe(1);
    expect(classifierAgreement(f32([5, 1, 1, 1, 1, 1]), f32([1, 2, 3, 4, 5, 6]), [6]).top5).toBe(0);
  });

  it('gives NaN rates for zero rows', () => {
    const result = classifierAgreement(f32([]), f32([]), [0, 10]);
    expect(result.rows).toBe(0);
    expect(result.top1).toBeNaN();
  });
});

describe('ranking rules (numpy argmax: first maximum wins, NaN counts as the maximum)', () => {
  it('breaks ties toward the lower index', () => {
    expect(argmax(f32([3, 7, 7, 1]))).toBe(1);
    // float [1, 1, 0] → label 0; quantized [0, 1, 1] puts 1 and 2 ahead of 0 → rank 2
    expect(topKMatches(f32([1, 1, 0]), f32([0, 1, 1]), [3], 1)).toBe(0);
    expect(topKMatches(f32([1, 1, 0]), f32([0, 1, 1]), [3], 2)).toBe(0);
    expect(topKMatches(f32([1, 1, 0]), f32([0, 1, 1]), [3], 3)).toBe(1);
    // equal scores on both sides: both pick index 0
    expect(topKMatches(f32([5, 5]), f32([5, 5]), [2], 1)).toBe(1);
  });

  it('ranks NaN above every number', () => {
    expect(argmax(f32([1, NaN, 3]))).toBe(1);
    expect(topKMatches(f32([9, 1, 1]), f32([1, NaN, 0]), [3], 1)).toBe(0);
  });

  it('reads a row in the middle of a buffer', () => {
    // row 1 of [[0, 9], [4, 2]] starts at 2: argmax of [4, 2] is 0
    expect(argmax(f32([0, 9, 4, 2]), 2, 2)).toBe(0);
  });
});

describe('argument checks', () => {
  it('rejects mismatched sizes, dims that do not fit, scalars and k < 1', () => {
    expect(() => classifierAgreement(f32([1, 2]), f32([1]), [2])).toThrow(MetricInputError);
    expect(() => classifierAgreement(f32([1, 2]), f32([1, 2]), [3])).toThrow(MetricInputError);
    expect(() => classifierAgreement(f32([1]), f32([1]), [])).toThrow(MetricInputError);
    expect(() => topKMatches(f32([1]), f32([1]), [1], 0)).toThrow(MetricInputError);
  });
});

describe('top-1 and top-5 agreement against an independent implementation', () => {
  it('match to 1e-6 on random scores: a row agrees at k when the float winner is among the k best quantized scores', () => {
    let seed = 5;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let trial = 0; trial < 20; trial++) {
      const [rows, classes] = [16, 10];
      const ref = Float32Array.from({ length: rows * classes }, () => random());
      const test = ref.map((v) => v + (random() - 0.5) * 0.2 * (trial % 5));
      let top1 = 0;
      let top5 = 0;
      for (let r = 0; r < rows; r++) {
        const f = Array.from(ref.subarray(r * classes, (r + 1) * classes));
        const q = Array.from(test.subarray(r * classes, (r + 1) * classes));
        const winner = f.indexOf(Math.max(...f));
        // Ranked by sorting: how many quantized scores beat the winner's (ties to the lower index).
        const ranked = q.map((v, c) => [v, c]).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
        const place = ranked.findIndex(([, c]) => c === winner);
        top1 += place < 1 ? 1 : 0;
        top5 += place < 5 ? 1 : 0;
      }
      const got = classifierAgreement(ref, test, [rows, classes]);
      expect(Math.abs(got.top1 - top1 / rows)).toBeLessThan(1e-6);
      expect(Math.abs(got.top5 - top5 / rows)).toBeLessThan(1e-6);
    }
  });
});
