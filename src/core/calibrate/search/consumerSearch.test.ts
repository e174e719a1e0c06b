/**
 * ConsumerMSE's search (consumerSearch.ts) on a model built in code, in onnxruntime-node: the consumer's
 * error decides, not the tensor's own. x feeds a Relu only, and x holds a few large negative values: its own
 * error favours a range that keeps them, while the Relu drops them, so the search clips them away.
 */
import { describe, expect, it } from 'vitest';
import { DataType, makeGraph, makeModel, makeNode, makeValueInfo } from '../../onnx/model.ts';
import { ortNodeRuntime } from '../../../cli/runtime/ortNode.ts';
import { candidateRanges, consumerSearch, searchModel } from './consumerSearch.ts';
import { createHistogram, foldIntoHistogram } from '../histogram/histogram.ts';
import { uniform } from '../testData.ts';
import { searchBounds } from '../collectors/qdqError.ts';
import { encode } from '../../onnx/index.ts';

const model = makeModel(
  makeGraph({
    node: [makeNode('Relu', ['x'], ['y'])],
    input: [makeValueInfo('x', DataType.FLOAT, [1, 4096])],
    output: [makeValueInfo('y', DataType.FLOAT, [1, 4096])],
  }),
  { '': 13 },
);

function data(seed: number): Float32Array {
  const x = uniform(4096, seed, 0, 1);
  for (let i = 0; i < 4; i++) x[i * 1000] = -40; // rare, large, and dropped by the Relu
  return x;
}

describe('ConsumerMSE search', () => {
  it('picks, per tensor, the candidate its consumer errs least with, here clipping what the Relu drops', async () => {
    const samples = [data(1), data(2)];
    const hist = createHistogram(8192);
    for (const x of samples) foldIntoHistogram(hist, x);
    const options = { quantType: 'int8' as const, symmetric: false };
    const candidates = candidateRanges(hist, options.quantType, options.symmetric);
    expect(candidates[0]).toMatchObject({ min: -40, max: hist.max }); // MinMax first
    expect(candidates.length).toBeGreaterThan(1);
    const relu = createHistogram(8192);
    for (const x of samples)
      foldIntoHistogram(
        relu,
        x.map((v) => Math.max(0, v)),
      );
    const chosen = await consumerSearch(
      model,
      new Map([
        ['x', hist],
        ['y', relu],
      ]),
      options,
      ortNodeRuntime(1),
      samples.map((x) => ({ x: { type: 'float32' as const, data: x, dims: [1, 4096] } })),
    );
    const range = chosen.get('x')!;
    expect(range.min).toBeGreaterThan(-40);
    expect(candidates.some((c) => c.min === range.min && c.max === range.max)).toBe(true);
  });

  it('the search model measures exactly the consumer error of a fake-quantized input', async () => {
    const x = data(3);
    const bounds = searchBounds('int8', false);
    const { model: search, searched } = searchModel(model, ['x'], new Set(['x', 'y']), bounds);
    expect(searched).toEqual([0]);
    const session = await ortNodeRuntime(1).createSession(encode(search), 'float');
    const s = 0.25;
    const z = -10;
    const out = await session.runner.run({
      x: { type: 'float32', data: x, dims: [1, 4096] },
      'qs:s:0': { type: 'float32', data: Float32Array.of(s), dims: [] },
      'qs:z:0': { type: 'float32', data: Float32Array.of(z), dims: [] },
    });
    await session.runner.release();
    let expected = 0;
    for (const v of x) {
      const q = Math.min(bounds.qmax, Math.max(bounds.qmin, Math.round(Math.fround(v / s)) + z));
      const d = Math.max(0, (q - z) * s) - Math.max(0, v);
      expected += d * d;
    }
    expect((out['qs:e:0'].data as Float32Array)[0]).toBeCloseTo(expected, 2);
  });
});
