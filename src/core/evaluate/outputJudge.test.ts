/** The output judge's noise: pooled over samples, so a nearly empty float output cannot outweigh the others. */
import { describe, expect, it } from 'vitest';
import { makeGraph, makeModel, makeValueInfo, DataType, type ModelProto } from '../onnx/index.ts';
import { createOutputJudge, sampleSubset } from './outputJudge.ts';
import type { SampleRun } from './sampleRuns.ts';
import type { ComparisonRuntime } from './compareModels.ts';

const model = (name: string): ModelProto =>
  makeModel(
    makeGraph({
      name,
      node: [],
      input: [makeValueInfo('x', DataType.FLOAT, [2])],
      output: [makeValueInfo('y', DataType.FLOAT, [2])],
    }),
    { '': 13 },
  );

/** A runtime whose models' outputs are given per graph name (the judge encodes the model; the name survives). */
function fakeRuntime(outputs: Record<string, number[][]>): ComparisonRuntime {
  return {
    samples: 2,
    async open(bytes) {
      const text = new TextDecoder().decode(bytes instanceof Uint8Array ? bytes : bytes.bytes);
      const name = Object.keys(outputs).find((n) => text.includes(n))!;
      return {
        run: async (s: number) => ({ y: { type: 'float32', data: Float32Array.from(outputs[name][s]), dims: [2] } }),
        release: async () => undefined,
      };
    },
  };
}

describe('createOutputJudge', () => {
  it('pools noise and signal over samples: a tiny float output weighs by its power, its cosine by 1/n', async () => {
    const runtime = fakeRuntime({
      floatnet: [
        [10, 0],
        [0.01, 0],
      ],
      quantnet: [
        [10, 1],
        [0.01, 0.01],
      ],
    });
    const judge = await createOutputJudge(model('floatnet'), runtime);
    const score = await judge.score(model('quantnet'));
    // Per sample the ratios are 0.01 and 1 (their mean 0.505); pooled: (1 + 0.0001) / (100 + 0.0001).
    expect(score.noise).toBeCloseTo(1.0001 / 100.0001, 8);
    expect(score.cosine).toBeCloseTo((10 / Math.sqrt(101) + 1 / Math.sqrt(2)) / 2, 6);
  });

  it('aims at a figure of the runs when given one (a task target): error 1 − figure, each run named by its sample in the full set', async () => {
    const runtime = {
      ...fakeRuntime({
        floatnet: [
          [1, 0],
          [0, 1],
        ],
        quantnet: [
          [1, 0],
          [1, 0],
        ],
      }),
      samples: 2,
    };
    const seen: SampleRun[][] = [];
    // Agreement of the argmax, as a classifier's top-1 agreement would read it.
    const figure = (runs: readonly SampleRun[]) => {
      seen.push([...runs]);
      const top = (t: SampleRun['float']) => ((t.y.data as Float32Array)[0] >= (t.y.data as Float32Array)[1] ? 0 : 1);
      return runs.filter((r) => top(r.float) === top(r.quant)).length / runs.length;
    };
    const judge = await createOutputJudge(model('floatnet'), runtime, { figure });
    const score = await judge.score(model('quantnet'));
    expect(score.figure).toBe(0.5);
    expect(score.error).toBe(0.5);
    expect(score.cosine).toBeCloseTo(0.5, 6); // measured all the same
    expect(seen[0].map((r) => r.index)).toEqual([0, 1]);
    // A subset of the samples: its runs keep the index each sample has in the runtime's own.
    const four: ComparisonRuntime = {
      samples: 4,
      open: async () => ({
        run: async (s: number) => ({ y: { type: 'float32', data: Float32Array.from([s, 0]), dims: [2] } }),
        release: async () => undefined,
      }),
    };
    const sub = await createOutputJudge(model('floatnet'), sampleSubset(four, 2), { figure });
    await sub.score(model('quantnet'));
    expect(seen.at(-1)!.map((r) => r.index)).toEqual([1, 3]);
  });
});
