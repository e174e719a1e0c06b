import { describe, expect, it } from 'vitest';
import type { ComparisonRuntime } from '../evaluate/compareModels.ts';
import { memoizedRuntime } from './memoizedRuntime.ts';

/** A runtime whose "model" is its first byte: a run returns that byte plus the sample; counts the runs. */
function counting() {
  const runs: string[] = [];
  const rt: ComparisonRuntime = {
    samples: 3,
    async open(model) {
      if (!(model instanceof Uint8Array)) throw new Error('this fake runtime takes bytes only');
      return {
        async run(sample, outputs) {
          runs.push(`${model[0]}:${sample}`);
          return Object.fromEntries(
            outputs.map((o) => [o, { type: 'float32', data: Float32Array.of(model[0] + sample), dims: [1] }]),
          );
        },
        async release() {},
      };
    },
  };
  return { rt, runs };
}

describe('memoizedRuntime', () => {
  it('answers a model opened again (same bytes, sample, outputs) from memory, and runs anything else', async () => {
    const { rt, runs } = counting();
    const memo = memoizedRuntime(rt);
    const float = Uint8Array.of(7, 1, 2);
    const pass = async (bytes: Uint8Array, outputs = ['y']) => {
      const s = await memo.open(bytes);
      const got: number[] = [];
      for (let i = 0; i < 3; i++) got.push(((await s.run(i, outputs))[outputs[0]].data as Float32Array)[0]);
      await s.release();
      return got;
    };
    expect(await pass(float)).toEqual([7, 8, 9]);
    expect(await pass(Uint8Array.of(3))).toEqual([3, 4, 5]); // a one-off model
    expect(await pass(float)).toEqual([7, 8, 9]); // second open: runs, and is remembered from now on
    expect(runs).toHaveLength(9);
    expect(await pass(float)).toEqual([7, 8, 9]);
    expect(runs).toHaveLength(9);
    expect(memo.hits).toBe(3);
    expect(await pass(float, ['z'])).toEqual([7, 8, 9]); // other outputs: a new question
    expect(runs).toHaveLength(12);
  });

  it('remembers nothing past its byte budget', async () => {
    const { rt, runs } = counting();
    const memo = memoizedRuntime(rt, 0);
    for (let k = 0; k < 3; k++) {
      const s = await memo.open(Uint8Array.of(1));
      await s.run(0, ['y']);
    }
    expect(runs).toHaveLength(3);
    expect(memo.hits).toBe(0);
  });
});
