/**
 * The consumer search on a partly quantized model (sequentialSearch.ts), on a model built in code, in
 * onnxruntime-node: the error it measures for a tensor's current range is the one the quantized model really
 * has at the consumer (QuantizeLinear/DequantizeLinear run by onnxruntime, against the fake quantization in
 * float ops the search model uses), against the float model's consumer output or the unquantized input's.
 */
import { describe, expect, it } from 'vitest';
import { DataType, makeGraph, makeModel, makeNode, makeValueInfo, type ModelProto } from '../../onnx/model.ts';
import { makeTensor } from '../../onnx/tensorData.ts';
import { encode } from '../../onnx/index.ts';
import { quantizeModel } from '../../quantize/quantizeModel.ts';
import { getPreset } from '../../quantize/presets.ts';
import { ortNodeRuntime } from '../../../cli/runtime/ortNode.ts';
import type { Feed } from '../../runtime/session.ts';
import { exposeOnly } from '../run/expose.ts';
import { createHistogram, foldIntoHistogram } from '../histogram/histogram.ts';
import { quantizedReadout } from '../run/sequential.ts';
import { searchPartlyQuantized, withoutRequantization } from './sequentialSearch.ts';
import { uniform } from '../testData.ts';

const N = 16;
const weights = (seed: number) => makeTensor(`w${seed}`, DataType.FLOAT, [N, N], uniform(N * N, seed, -0.5, 0.5));
// x → MatMul → m → MatMul → y: m's consumer is the second MatMul, whose weights are quantized too.
const model = makeModel(
  makeGraph({
    node: [makeNode('MatMul', ['x', 'w1'], ['m']), makeNode('MatMul', ['m', 'w2'], ['y'])],
    input: [makeValueInfo('x', DataType.FLOAT, [64, N])],
    output: [makeValueInfo('y', DataType.FLOAT, [64, N])],
    initializer: [weights(1), weights(2)],
  }),
  { '': 13 },
);
const samples = [11, 12].map((seed) => {
  const x = uniform(64 * N, seed, -1, 1);
  x[5] = 9; // one outlier, which a wide range keeps and a narrow one clips
  return { x: { type: 'float32' as const, data: x, dims: [64, N] } };
});

async function run(m: ModelProto, tensors: string[], feeds: Record<string, Feed>): Promise<Float32Array[]> {
  const { runner } = await ortNodeRuntime(1).createSession(encode(exposeOnly(m, tensors)), 'float');
  const out = await runner.run(feeds);
  await runner.release();
  return tensors.map((t) => out[t].data as Float32Array);
}

const squaredError = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + (v - b[i]) ** 2, 0);

describe('consumer search on the partly quantized model', () => {
  const ranges = new Map([
    ['x', { min: -1, max: 9 }],
    ['m', { min: -8, max: 8 }],
    ['y', { min: -8, max: 8 }],
  ]);
  const config = { ...getPreset('A8W8'), perChannel: true };
  const quantized = quantizeModel(model, ranges, config).model;
  const readout = quantizedReadout(quantized, ['m', 'y']);

  it("takes out only the searched tensor's own QuantizeLinear/DequantizeLinear", () => {
    const plain = withoutRequantization(quantized, [readout.get('m')!]);
    const qOf = (g: ModelProto, v: string) =>
      g.graph!.node.filter((n) => n.op_type === 'QuantizeLinear' && n.input[0] === v).length;
    expect(qOf(quantized, 'm')).toBe(1);
    expect(qOf(plain, 'm')).toBe(0);
    expect(qOf(plain, 'x')).toBe(1);
    const consumer = plain.graph!.node.find((n) => n.op_type === 'MatMul' && n.input.includes('m'));
    expect(consumer).toBeDefined();
    expect(plain.graph!.node.length).toBe(quantized.graph!.node.length - 2);
  });

  it.each(['float', 'unquantized'] as const)(
    'measures at the current range the consumer error the quantized model has (against the %s output)',
    async (reference) => {
      const hist = createHistogram(8192);
      const [mValues] = await run(withoutRequantization(quantized, [readout.get('m')!]), ['m'], samples[0]);
      foldIntoHistogram(hist, mValues);
      const found = await searchPartlyQuantized(
        model,
        quantized,
        new Map([['m', { hist, current: ranges.get('m')! }]]),
        { quantType: config.activationType, symmetric: config.extraOptions.ActivationSymmetric, reference },
        ortNodeRuntime(1),
        samples,
      );
      const m = found.get('m')!;
      expect(m.candidates[0]).toMatchObject({ min: -8, max: 8 });
      expect(m.errors.length).toBe(m.candidates.length);
      expect(m.candidates.length).toBeGreaterThan(1);
      // The consumer's output before its own quantization, in the quantized model and in its reference.
      const y = readout.get('y')!;
      let expected = 0;
      for (const s of samples) {
        const [quantizedY] = await run(quantized, [y], s);
        const [referenceY] =
          reference === 'float'
            ? await run(model, ['y'], s)
            : await run(withoutRequantization(quantized, [readout.get('m')!]), [y], s);
        expected += squaredError(quantizedY, referenceY);
      }
      expect(m.errors[0]).toBeGreaterThan(0);
      expect(m.errors[0]).toBeCloseTo(expected, 2);
      // A range that fits m's values errs less than the wide one given.
      expect(Math.min(...m.errors)).toBeLessThan(m.errors[0]);
    },
  );
});
