/**
 * SmoothQuant as a float-model transform: onnxruntime-node runs the model before and after on the same
 * inputs and the outputs agree within 1e-4; channel maxima measured by running the model; the factors
 * land where the reference puts them (weights' input rows × s, the producer's constants ÷ s).
 */
import { describe, expect, it } from 'vitest';
import {
  buildGraphIndex,
  DataType,
  encode,
  makeNode,
  makeTensor,
  readTensorAsFloat32,
  type ModelProto,
} from '../src/core/onnx/index.ts';
import { attentionBlockModel } from '../src/core/quantize/testModels.ts';
import { applySmoothQuant, channelAbsMax, smoothQuantCandidates } from '../src/core/recovery/smoothQuant.ts';
import { quantizeWithRecovery } from '../src/core/recovery/quantizeWithRecovery.ts';
import { validateConfig } from '../src/core/quantize/config.ts';
import { nodeRuntime, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { calibrateOnTensors } from '../src/cli/calibration/calibrateOnImages.ts';
import { runModel } from './helpers/runModels.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { floatIO, smallModel } from './helpers/smallModels.ts';

/** Inputs with two outlier channels (×20), as transformer activations have. */
const feeds = (n: number, seed: number) =>
  Array.from({ length: n }, (_, k) => ({
    x: float32Tensor(
      seededFloats(48, seed + k, -1, 1).map((v, i) => (i % 8 === 2 || i % 8 === 5 ? v * 20 : v)),
      [1, 6, 8],
    ),
  }));

/** LayerNormalization (opset 17) → MatMul → Add(bias) → MatMul: smoothable at the LayerNorm and at the linear output. */
function linearChainModel(): ModelProto {
  const d = 8;
  const w = (name: string, seed: number) =>
    makeTensor(
      name,
      DataType.FLOAT,
      [d, d],
      Float32Array.from({ length: d * d }, (_, i) => Math.sin(seed + i * 0.9) * 0.5),
    );
  return smallModel({
    nodes: [
      makeNode('LayerNormalization', ['x', 'gamma', 'beta'], ['h']),
      makeNode('MatMul', ['h', 'w1'], ['m']),
      makeNode('Add', ['m', 'b1'], ['a']),
      makeNode('MatMul', ['a', 'w2'], ['y']),
    ],
    inputs: [floatIO('x', [1, 6, d])],
    outputs: [floatIO('y', [1, 6, d])],
    initializers: [
      makeTensor(
        'gamma',
        DataType.FLOAT,
        [d],
        Float32Array.from({ length: d }, (_, i) => (i === 3 ? 12 : 0.7 + 0.05 * i)),
      ),
      makeTensor(
        'beta',
        DataType.FLOAT,
        [d],
        Float32Array.from({ length: d }, (_, i) => 0.1 * i),
      ),
      w('w1', 1),
      makeTensor(
        'b1',
        DataType.FLOAT,
        [d],
        Float32Array.from({ length: d }, (_, i) => i - 4),
      ),
      w('w2', 2),
    ],
    opset: 17,
  });
}

async function smoothed(model: ModelProto, alpha: number) {
  const samples = feeds(6, 5);
  const candidates = smoothQuantCandidates(model);
  const maxima = await channelAbsMax(
    model,
    candidates.map((c) => c.tensor),
    nodeRuntime(samples),
  );
  return { candidates, maxima, ...applySmoothQuant(model, candidates, maxima, alpha) };
}

async function maxOutputDifference(a: ModelProto, b: ModelProto): Promise<number> {
  let worst = 0;
  for (const f of feeds(4, 77)) {
    const ya = (await runModel(encode(a), f)).y.data;
    const yb = (await runModel(encode(b), f)).y.data;
    ya.forEach((v, i) => (worst = Math.max(worst, Math.abs(v - yb[i]))));
  }
  return worst;
}

describe('SmoothQuant (include_sq)', () => {
  it("smooths the written-out LayerNorm's output before Q, K and V, folding 1/s into γ and β; outputs unchanged within 1e-4", async () => {
    const model = attentionBlockModel();
    const r = await smoothed(model, 0.5);
    expect(r.candidates.map((c) => [c.tensor, c.weights.map((w) => w.name), c.fold.divide])).toEqual([
      ['h', ['wq', 'wk', 'wv'], ['gamma', 'beta']],
    ]);
    expect(r.report.tensors).toHaveLength(1);
    expect(r.report.tensors[0].maxScale).toBeGreaterThan(r.report.tensors[0].minScale);
    expect(await maxOutputDifference(model, r.model)).toBeLessThan(1e-4);
  });

  it("puts s_j = max|X_j|^α / max|W_j|^(1−α) into the weights' rows and 1/s_j into the producer", async () => {
    const model = linearChainModel();
    const r = await smoothed(model, 0.5);
    expect(r.candidates.map((c) => c.tensor)).toEqual(['h', 'a']);
    const before = buildGraphIndex(model.graph!).initializers;
    const after = buildGraphIndex(r.model.graph!).initializers;
    const read = (m: typeof before, n: string) => readTensorAsFloat32(m.get(n as never)!);
    /** s_j of a tensor from its maxima and the rows of the weight that reads it. */
    const factors = (tensor: string, weight: string) => {
      const w = read(before, weight);
      const xMax = r.maxima.get(tensor)!;
      return Array.from({ length: 8 }, (_, j) => {
        let wMax = 0;
        for (let n = 0; n < 8; n++) wMax = Math.max(wMax, Math.abs(w[j * 8 + n]));
        return Math.sqrt(xMax[j]) / Math.sqrt(wMax);
      });
    };
    const sh = factors('h', 'w1');
    const sa = factors('a', 'w2');
    for (let j = 0; j < 8; j++) {
      expect(read(after, 'gamma')[j]).toBeCloseTo(read(before, 'gamma')[j] / sh[j], 5);
      expect(read(after, 'beta')[j]).toBeCloseTo(read(before, 'beta')[j] / sh[j], 5);
      expect(read(after, 'b1')[j]).toBeCloseTo(read(before, 'b1')[j] / sa[j], 5);
      expect(read(after, 'w2')[j * 8 + 3]).toBeCloseTo(read(before, 'w2')[j * 8 + 3] * sa[j], 5);
      // w1: rows × s_h (for h) and columns ÷ s_a (for a).
      expect(read(after, 'w1')[j * 8 + 5]).toBeCloseTo((read(before, 'w1')[j * 8 + 5] * sh[j]) / sa[5], 4);
    }
    expect(await maxOutputDifference(model, r.model)).toBeLessThan(1e-4);
  });

  it.each([0, 0.25, 0.85, 1])('keeps the outputs for α = %s', async (alpha) => {
    const model = linearChainModel();
    expect(await maxOutputDifference(model, (await smoothed(model, alpha)).model)).toBeLessThan(1e-4);
  });

  it('leaves a tensor alone when another op reads it or nothing can absorb the division', () => {
    const model = attentionBlockModel();
    // x feeds the LayerNorm and the residual Add: not a candidate; h after γ/β is.
    expect(smoothQuantCandidates(model).map((c) => c.tensor)).not.toContain('x');
    const noFold = linearChainModel();
    noFold.graph!.node = noFold
      .graph!.node.slice(1)
      .map((n) => (n.input[0] === 'h' ? { ...n, input: ['x', ...n.input.slice(1)] } : n));
    expect(smoothQuantCandidates(noFold).map((c) => c.tensor)).toEqual(['a']);
  });

  it('runs inside quantizeWithRecovery before calibration and reports what it smoothed', async () => {
    const model = attentionBlockModel();
    const samples = feeds(4, 9);
    const config = validateConfig({
      activationType: 'uint8',
      weightType: 'int8',
      includeSq: true,
      extraOptions: { SmoothAlpha: 0.6 },
    });
    const result = await quantizeWithRecovery(model, config, {
      calibrate: async (m) =>
        (
          await calibrateOnTensors(
            m,
            samples.map((f) => f.x),
            { config },
          )
        ).ranges,
      runtime: nodeRuntime(samples),
    });
    expect(result.recovery.smoothQuant?.alpha).toBe(0.6);
    expect(result.recovery.smoothQuant?.tensors.map((t) => t.tensor)).toEqual(['h']);
    expect(await maxOutputDifference(model, result.floatModel)).toBeLessThan(1e-4);
  });
});
