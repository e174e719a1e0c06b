/** The output judge's noise: pooled over samples, so a nearly empty float output cannot outweigh the others. */
import { describe, expect, it } from 'vitest';
import { makeGraph, makeModel, makeValueInfo, DataType, type ModelProto } from '../onnx/index.ts';
import { createOutputJudge } from './outputJudge.ts';
import type { ComparisonRuntime } from './compareModels.ts';

const model = (name: string): ModelProto => makeModel(makeGraph({ name, node: [], input: [makeValueInfo('x', DataType.FLOAT, [2])], output: [makeValueInfo('y', DataType.FLOAT, [2])] }), { '': 13 });

/** A runtime whose models' outputs are given per graph name (the judge encodes the model; the name survives). */
function fakeRuntime(outputs: Record<string, number[][]>): ComparisonRuntime {
  return {
    samples: 2,
    async open(bytes) {
      const text = new TextDecoder().decode(bytes instanceof Uint8Array ? bytes : bytes.bytes);
      const name = Object.keys(outputs).find((n) => text.includes(n))!;
      return { run: async (s: number) => ({ y: { type: 'float32', data: Float32Array.from(outputs[name][s]), dims: [2] } }), release: async () => undefined };
    },
  };
}

describe('createOutputJudge', () => {
  it('pools noise and signal over samples: a tiny float output weighs by its power, its cosine by 1/n', async () => {
    const runtime = fakeRuntime({ floatnet: [[10, 0], [0.01, 0]], quantnet: [[10, 1], [0.01, 0.01]] });
    const judge = await createOutputJudge(model('floatnet'), runtime);
    const score = await judge.score(model('quantnet'));
    // Per sample the ratios are 0.01 and 1 (their mean 0.505); pooled: (1 + 0.0001) / (100 + 0.0001).
    expect(score.noise).toBeCloseTo(1.0001 / 100.0001, 8);
    expect(score.cosine).toBeCloseTo((10 / Math.sqrt(101) + 1 / Math.sqrt(2)) / 2, 6);
  });
});
