import { describe, expect, it } from 'vitest';
import { characterErrorRate, ctcGreedyDecode, sequenceAgreement } from './sequence.ts';
import { editDistance } from '../editDistance.ts';
import { MetricInputError } from './input.ts';

/** Hand-made logits: one row of `classes` scores per step, the winner scored 5, the rest 0. */
function logits(winners: number[][], classes: number): Float32Array {
  const out = new Float32Array(winners.length * winners[0].length * classes);
  winners.forEach((seq, s) => seq.forEach((c, t) => (out[(s * seq.length + t) * classes + c] = 5)));
  return out;
}

describe('ctcGreedyDecode (best path: top-1 per step, repeats collapsed, blank dropped)', () => {
  it('collapses repeats and drops blanks (class 0)', () => {
    // steps: a a _ a b b _ _ c → "a a b c" with the blank separating the two a's
    const x = logits([[1, 1, 0, 1, 2, 2, 0, 0, 3]], 4);
    expect(ctcGreedyDecode(x, 0, 9, 4)).toEqual([1, 1, 2, 3]);
  });

  it('decodes an all-blank sequence as empty', () => {
    expect(ctcGreedyDecode(logits([[0, 0, 0]], 3), 0, 3, 3)).toEqual([]);
  });

  it('takes another blank index when told', () => {
    expect(ctcGreedyDecode(logits([[2, 1, 2, 0, 0]], 3), 0, 5, 3, 2)).toEqual([1, 0]);
  });

  it('reads one sequence of a batch from its start', () => {
    const x = logits(
      [
        [1, 0],
        [2, 2],
      ],
      3,
    );
    expect(ctcGreedyDecode(x, 2 * 3, 2, 3)).toEqual([2]);
  });
});

describe('editDistance (Levenshtein)', () => {
  it.each([
    [[], [], 0],
    [[1, 2, 3], [1, 2, 3], 0],
    [[1, 2, 3], [1, 3], 1], // one deletion
    [[1, 3], [1, 2, 3], 1], // one insertion
    [[1, 2, 3], [1, 4, 3], 1], // one substitution
    [[1, 2, 3], [], 3],
    [[7, 8, 9, 1], [1, 7, 8, 9], 2], // kitten/sitting-style shift: insert + delete
  ])('%j → %j is %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('sequenceAgreement (float decoding as the label)', () => {
  it('is perfect for identical outputs', () => {
    const x = logits([[1, 1, 0, 2]], 3);
    expect(sequenceAgreement(x, x, [1, 4, 3])).toMatchObject({
      sequences: 1,
      steps: 4,
      stepTop1: 1,
      sequence: 1,
      cer: 0,
    });
  });

  it('counts a changed repeat step as a step error but not a text error', () => {
    // float a a _ b → "ab"; quantized a _ _ b → "ab": 3 of 4 steps agree, text identical
    const r = sequenceAgreement(logits([[1, 1, 0, 2]], 3), logits([[1, 0, 0, 2]], 3), [1, 4, 3]);
    expect(r).toMatchObject({ stepMatches: 3, stepTop1: 0.75, sequenceMatches: 1, sequence: 1, charErrors: 0, cer: 0 });
  });

  it('scores each sequence of a batch and pools the CER', () => {
    // seq 0: float "12" vs quantized "12" (same); seq 1: float "123" vs quantized "13" (1 deletion)
    const reference = logits(
      [
        [1, 0, 2, 0],
        [1, 2, 0, 3],
      ],
      4,
    );
    const test = logits(
      [
        [1, 1, 2, 2],
        [1, 0, 0, 3],
      ],
      4,
    );
    const r = sequenceAgreement(reference, test, [2, 4, 4]);
    expect(r.sequences).toBe(2);
    expect(r.steps).toBe(8);
    expect(r.stepMatches).toBe(5); // seq 0: steps 0,2 agree; seq 1: steps 0,2,3 agree
    expect(r.sequenceMatches).toBe(1);
    expect(r.sequence).toBe(0.5);
    expect(r.charErrors).toBe(1);
    expect(r.referenceChars).toBe(5);
    expect(r.cer).toBeCloseTo(0.2, 15);
  });

  it('reports a wrong character when the quantized model reads text the float model did not', () => {
    const r = sequenceAgreement(logits([[0, 0, 0]], 3), logits([[0, 2, 0]], 3), [1, 3, 3]);
    expect(r).toMatchObject({ referenceChars: 0, charErrors: 1, cer: 1, sequence: 0 });
  });

  it('ranks raw logits and probabilities alike (no softmax needed)', () => {
    const probabilities = new Float32Array([0.1, 0.8, 0.1, 0.7, 0.2, 0.1]);
    const raw = new Float32Array([-3, 4, -2, 6, 1, -5]);
    expect(sequenceAgreement(probabilities, raw, [1, 2, 3])).toMatchObject({ stepTop1: 1, sequence: 1 });
  });

  it('refuses mismatched sizes, too few axes and a blank outside the classes', () => {
    expect(() => sequenceAgreement(new Float32Array(6), new Float32Array(4), [1, 2, 3])).toThrow(MetricInputError);
    expect(() => sequenceAgreement(new Float32Array(3), new Float32Array(3), [3])).toThrow(MetricInputError);
    expect(() => sequenceAgreement(new Float32Array(6), new Float32Array(6), [1, 2, 3], 3)).toThrow(MetricInputError);
  });
});

describe('characterErrorRate', () => {
  it('divides errors by reference characters, and is 0 for no text and no errors', () => {
    expect(characterErrorRate(1, 100)).toBe(0.01);
    expect(characterErrorRate(0, 0)).toBe(0);
    expect(characterErrorRate(2, 0)).toBe(2);
  });
});

describe('sequence agreement against an independent implementation', () => {
  /** Greedy CTC by sorting each row (not a running arg-max), and Levenshtein by the full table. */
  const decode = (x: Float32Array, seq: number, steps: number, classes: number) => {
    const out: number[] = [];
    let last = -1;
    for (let t = 0; t < steps; t++) {
      const row = Array.from(x.subarray((seq * steps + t) * classes, (seq * steps + t + 1) * classes));
      const best = row.map((v, c) => [v, c]).sort((a, b) => b[0] - a[0] || a[1] - b[1])[0][1];
      if (best !== last && best !== 0) out.push(best);
      last = best;
    }
    return out;
  };
  const levenshtein = (a: number[], b: number[]) => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++)
      for (let j = 1; j <= b.length; j++)
        d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    return d[a.length][b.length];
  };

  it('step top-1, lines read the same and pooled CER match to 1e-6 on random scores', () => {
    let seed = 11;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let trial = 0; trial < 20; trial++) {
      const [batch, steps, classes] = [4, 12, 5];
      const ref = Float32Array.from({ length: batch * steps * classes }, () => random());
      // Noise of a size that changes some rows' winners and leaves others.
      const test = ref.map((v) => v + (random() - 0.5) * 0.3 * (trial % 4));
      let stepSame = 0;
      let same = 0;
      let errors = 0;
      let chars = 0;
      for (let s = 0; s < batch; s++) {
        const a = decode(ref, s, steps, classes);
        const b = decode(test, s, steps, classes);
        same += a.join() === b.join() ? 1 : 0;
        errors += levenshtein(a, b);
        chars += a.length;
        for (let t = 0; t < steps; t++) {
          const r = Array.from(ref.subarray((s * steps + t) * classes, (s * steps + t + 1) * classes));
          const q = Array.from(test.subarray((s * steps + t) * classes, (s * steps + t + 1) * classes));
          stepSame += r.indexOf(Math.max(...r)) === q.indexOf(Math.max(...q)) ? 1 : 0;
        }
      }
      const got = sequenceAgreement(ref, test, [batch, steps, classes]);
      expect(Math.abs(got.stepTop1 - stepSame / (batch * steps))).toBeLessThan(1e-6);
      expect(Math.abs(got.sequence - same / batch)).toBeLessThan(1e-6);
      expect(Math.abs(got.cer - (chars ? errors / chars : errors))).toBeLessThan(1e-6);
    }
  });
});
