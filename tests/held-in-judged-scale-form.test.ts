/**
 * The held-in method choice judges a float16 model's candidates in their float32-scale form (judgedScaleForm.ts) and
 * writes the chosen one as asked (float16 scales by default); a float32 model's candidates are judged as written.
 * MNIST and its float16 version made here in code, calibrated on photos, judged in onnxruntime-node at 'all'. The two
 * forms' preparations share the float32 form's initializers and so their quantized weights (QuantizedWeights keyed by
 * tensor object).
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { decode, DataType, type ModelProto } from '../src/core/onnx/index.ts';
import { asSessionModel } from '../src/core/onnx/externalize.ts';
import { float16ToFloat32, float32ToFloat16 } from '../src/core/halfFloat/float16.ts';
import { floatSessionModel, type ComparisonRuntime } from '../src/core/evaluate/compareModels.ts';
import { calibrateByHeldInChoice, heldInSummary } from '../src/core/evaluate/calibrationMethodChoice.ts';
import { FLOAT32_SCALES, judgedScaleForm } from '../src/core/evaluate/judgedScaleForm.ts';
import { prepareQuantization, quantizeModel, quantizePrepared } from '../src/core/quantize/quantizeModel.ts';
import { QuantizedWeights } from '../src/core/quantize/weights.ts';
import { getPreset, presetWithMethod } from '../src/core/quantize/presets.ts';
import { rangesOf, type TensorStates } from '../src/core/calibrate/run/statistics.ts';
import type { QuantConfig } from '../src/core/quantize/config.ts';
import { calibrateOnFeeds } from '../src/cli/calibration/calibrateOnImages.ts';
import { folderFeeds } from '../src/cli/data/dataFeeds.ts';
import { nodeRuntime } from '../src/cli/runtime/ortNode.ts';
import { IMAGES, MODELS } from './helpers/fixtures.ts';

const mnist32 = decode(new Uint8Array(fs.readFileSync(path.join(MODELS, 'mnist.onnx'))));
const mnist16 = float32ToFloat16(mnist32);
const photos = path.join(IMAGES, 'photos');

/** Scale types of a model's activation and weight Q/DQ (int32 bias DequantizeLinear left out). */
function scaleTypes(model: ModelProto): Set<number> {
  const types = new Map(model.graph!.initializer.map((t) => [t.name ?? '', t.data_type]));
  return new Set(
    model
      .graph!.node.filter(
        (n) =>
          (n.op_type === 'QuantizeLinear' || n.op_type === 'DequantizeLinear') &&
          types.get(n.input[0]) !== DataType.INT32,
      )
      .map((n) => types.get(n.input[1]) ?? -1),
  );
}

/** The held-in choice on 4 photos, recording the bytes of every model its judge opens and each statistics pass. */
async function choose(model: ModelProto) {
  const feeds = folderFeeds(model, photos, 'unit').feeds.slice(0, 4);
  const opened: Uint8Array[] = [];
  const statistics: TensorStates[][] = [];
  const held = await calibrateByHeldInChoice(model, {
    config: getPreset('A8W8'),
    withMethod: (m) => presetWithMethod('A8W8', m),
    configName: 'A8W8',
    samples: feeds.length,
    collect: async (indices, configs, unobserved) => {
      const r = await calibrateOnFeeds(
        model,
        indices.map((i) => feeds[i]),
        { config: configs[0], alsoFor: configs.slice(1), unobserved },
      );
      statistics.push([r.states, ...(r.alsoStates ?? [])]);
      return statistics.at(-1)!;
    },
    judge: (indices) => {
      const runtime = nodeRuntime(
        indices.map((i) => feeds[i]),
        'all',
      );
      const recording: ComparisonRuntime = {
        ...runtime,
        open: (bytes) => (opened.push(asSessionModel(bytes).bytes), runtime.open(bytes)),
      };
      return recording;
    },
  });
  return { held, opened, candidateStates: statistics[0] };
}

const configs: QuantConfig[] = (['MinMax', 'MinMSE', 'Entropy'] as const).map((m) => presetWithMethod('A8W8', m));

describe('the form the held-in choice judges its candidates in', () => {
  it('a float16 model written with float16 scales: each candidate judged with float32 scales, the choice written with float16 ones', async () => {
    const { held, opened, candidateStates } = await choose(mnist16);
    const reference = asSessionModel(floatSessionModel(mnist16)).bytes;
    // The float model first, then each candidate: the bytes its float32-scale quantization (UseFP32Scale) opens as.
    const candidates = opened.filter((b) => Buffer.compare(b, reference) !== 0);
    expect(candidates).toHaveLength(3);
    for (let i = 0; i < 3; i++) {
      const judgedConfig = { ...configs[i], extraOptions: { ...configs[i].extraOptions, UseFP32Scale: true } };
      const judged = quantizeModel(mnist16, rangesOf(candidateStates[i]), judgedConfig, 'A8W8').model;
      expect(Buffer.compare(candidates[i], asSessionModel(floatSessionModel(judged)).bytes)).toBe(0);
      expect(scaleTypes(decode(candidates[i]))).toEqual(new Set([DataType.FLOAT]));
    }
    expect(held.choice.judgedForm).toBe(FLOAT32_SCALES);
    expect(heldInSummary(held.choice)).toContain('candidates judged with float32 Q/DQ scales');
    // What is written is the configuration as asked: float16 scales on the float16 tensors' Q/DQ.
    expect(held.config.extraOptions.UseFP32Scale).toBe(false);
    const written = quantizePrepared(held.prepared, held.ranges, held.config, 'A8W8').model;
    expect(scaleTypes(written).has(DataType.FLOAT16)).toBe(true);
  }, 60_000);

  it('a float32 model: each candidate judged as written (the same configuration object, the same bytes)', async () => {
    const { held, opened, candidateStates } = await choose(mnist32);
    const reference = asSessionModel(floatSessionModel(mnist32)).bytes;
    const candidates = opened.filter((b) => Buffer.compare(b, reference) !== 0);
    expect(candidates).toHaveLength(3);
    for (let i = 0; i < 3; i++) {
      const written = quantizeModel(mnist32, rangesOf(candidateStates[i]), configs[i], 'A8W8').model;
      expect(Buffer.compare(candidates[i], asSessionModel(floatSessionModel(written)).bytes)).toBe(0);
    }
    expect(held.choice.judgedForm).toBeUndefined();
    expect(heldInSummary(held.choice)).not.toContain('judged with');
  }, 60_000);

  it('leaves a configuration that already writes float32 scales, or a float32 model, as it is', () => {
    const a8 = getPreset('A8W8');
    const fp32 = { ...a8, extraOptions: { ...a8.extraOptions, UseFP32Scale: true } };
    const whole = { ...a8, extraOptions: { ...a8.extraOptions, ConvertFP16ToFP32: true } };
    expect(judgedScaleForm(false)(a8)).toBe(a8);
    expect(judgedScaleForm(true)(fp32)).toBe(fp32);
    expect(judgedScaleForm(true)(whole)).toBe(whole);
    expect(judgedScaleForm(true)(a8).extraOptions).toEqual({ ...a8.extraOptions, UseFP32Scale: true });
  });
});

describe('the weights the two forms share', () => {
  const weightOptions = {
    type: 'int8',
    symmetric: true,
    scaleType: 'float32',
    reduceRange: false,
    minMse: false,
  } as const;

  it("a float16 model has one float32 form, whose initializers both forms' preparations carry", () => {
    expect(float16ToFloat32(mnist16)).toBe(float16ToFloat32(mnist16));
    const a8 = getPreset('A8W8');
    const weights = new QuantizedWeights();
    const written = prepareQuantization(mnist16, a8, weights);
    const judged = prepareQuantization(mnist16, judgedScaleForm(true)(a8), weights);
    expect(written.key).not.toBe(judged.key);
    // Initializers preparation leaves untouched are the same objects in both (MNIST's Conv weights are folded anew
    // with their Add in each; yolox-nano's and ISNet's weights all pass through).
    const shared = [...written.pIndex.initializers].filter(([k, t]) => judged.pIndex.initializers.get(k) === t);
    const float = shared.filter(([, t]) => t.data_type === DataType.FLOAT && t.dims.length >= 2);
    expect(float.length).toBeGreaterThan(0); // each made its own float32 form before: none shared
  });

  it('tells tensors apart by object: two tensors of one name get their own codes', () => {
    const weights = new QuantizedWeights();
    const model = float16ToFloat32(mnist16);
    const base = model.graph!.initializer.find((t) => t.data_type === DataType.FLOAT && t.dims.length === 4)!;
    const tensor = (values: number[]) => ({
      ...base,
      dims: [2, 2],
      raw_data: new Uint8Array(Float32Array.from(values).buffer),
    });
    const a = weights.quantize(tensor([1, -1, 0.5, 0.25]), undefined, weightOptions);
    const b = weights.quantize(tensor([4, -2, 1, 3]), undefined, weightOptions);
    expect(Array.from(a.scales)).not.toEqual(Array.from(b.scales));
  });

  it('the choice on the float16 model writes what a fresh quantization with its ranges and configuration writes', async () => {
    const { held } = await choose(mnist16);
    const shared = quantizePrepared(held.prepared, held.ranges, held.config, 'A8W8').model;
    const fresh = quantizeModel(float32ToFloat16(mnist32), held.ranges, held.config, 'A8W8').model;
    expect(
      Buffer.compare(asSessionModel(floatSessionModel(shared)).bytes, asSessionModel(floatSessionModel(fresh)).bytes),
    ).toBe(0);
  }, 60_000);
});
