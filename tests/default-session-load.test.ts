/**
 * Every model the studio writes loads and runs where users run it: onnxruntime-node and onnxruntime-web (WASM)
 * at their DEFAULT session options (graph optimization 'all', where the CPU provider fuses Q/DQ into QLinear*
 * and com.microsoft kernels with their own type rules) and at 'basic' (the model's own Q/DQ arithmetic).
 * The matrix: every preset, per tensor and per channel, on MNIST and UltraFace and on their float16 versions
 * made here in code; the FP16 workflows (float16 scales, UseFP32Scale, ConvertFP16ToFP32, a subgraph to
 * float32); BF16; mixed precision; exclusions. The 'all' figure must stay close to 'basic' on a real photo:
 * a fusion that computed something else would show there.
 */
import { describe, expect, it } from 'vitest';
import * as ortNode from 'onnxruntime-node';
import * as ortWeb from 'onnxruntime-web';
import { buildGraphIndex, decode, DataType, encode, tensorSummary, type ModelProto } from '../src/core/onnx/index.ts';
import { float16ToNumber, numberToFloat16 } from '../src/core/onnx/halfFloat.ts';
import { float32ToFloat16 } from '../src/core/halfFloat/float16.ts';
import { quantizeBf16 } from '../src/core/quantize/bf16Preset.ts';
import { quantizeModel } from '../src/core/quantize/quantizeModel.ts';
import { getPreset, PRESET_NAMES } from '../src/core/quantize/presets.ts';
import { configToJSON, validateConfig, type QuantConfig } from '../src/core/quantize/config.ts';
import { cosineSimilarity } from '../src/core/metrics/index.ts';
import { calibrateOnImages } from '../src/cli/calibration/calibrateOnImages.ts';
import { imageToTensor } from '../src/core/preprocess/toTensor.ts';
import { decodeImageFile } from '../src/cli/images/decode.ts';
import { FIXTURE_PREPROCESS, PHOTOS } from './helpers/calibration.ts';
import { readModel } from './helpers/fixtures.ts';
import { ULTRAFACE_TAIL } from './helpers/ultrafaceTail.ts';

ortWeb.env.wasm.numThreads = 1;

type Level = 'basic' | 'all';
type Outputs = Record<string, Float32Array>;

/** The preset with `fields` over it (extraOptions merged). */
function preset(name: string, fields: Record<string, unknown> = {}): QuantConfig {
  const json = JSON.parse(configToJSON(getPreset(name)));
  return validateConfig({
    ...json,
    ...fields,
    extraOptions: { ...json.extraOptions, ...((fields.extraOptions as object) ?? {}) },
  });
}

/** One real photo as the model's input, float16 where the model takes float16. */
function photoInput(model: ModelProto, fixture: string) {
  const input = tensorSummary(buildGraphIndex(model.graph!).inputs[0]);
  const t = imageToTensor(decodeImageFile(PHOTOS[1]), input.shape ?? [], FIXTURE_PREPROCESS[fixture]);
  const half = model.graph!.input[0].type!.tensor_type!.elem_type === DataType.FLOAT16;
  return { name: input.name, dims: t.dims, half, data: t.data };
}

const asNumbers = (type: string, data: unknown) =>
  type === 'float16'
    ? Float32Array.from(data as Uint16Array, float16ToNumber)
    : Float32Array.from(data as ArrayLike<number>);

/** Loads and runs `bytes` in onnxruntime-node or -web (WASM) at `level` (undefined: the runtime's defaults). */
async function runIn(
  runtime: 'node' | 'web',
  bytes: Uint8Array,
  level: Level | undefined,
  input: ReturnType<typeof photoInput>,
): Promise<Outputs> {
  const ort = (runtime === 'node' ? ortNode : ortWeb) as typeof ortNode;
  const options = {
    ...(level ? { graphOptimizationLevel: level } : {}),
    ...(runtime === 'web' ? { executionProviders: ['wasm'] } : { logSeverityLevel: 3 as const }),
  };
  const session = await ort.InferenceSession.create(bytes, options);
  try {
    const feed = input.half
      ? new ort.Tensor('float16', Uint16Array.from(input.data, numberToFloat16), input.dims)
      : new ort.Tensor('float32', input.data, input.dims);
    const out = await session.run({ [input.name]: feed });
    return Object.fromEntries(Object.entries(out).map(([k, t]) => [k, asNumbers(t.type, t.data)]));
  } finally {
    await session.release();
  }
}

const FIXTURES = ['mnist.onnx', 'ultraface-rfb-320.onnx'] as const;
const sources = new Map<string, ModelProto>();
const rangeCache = new Map<string, Promise<Map<string, { min: number; max: number }>>>();

/** The fixture, or its float16 version made here. */
function source(fixture: string, half: boolean): ModelProto {
  const key = `${fixture}|${half}`;
  if (!sources.has(key)) {
    const model = decode(readModel(fixture));
    sources.set(key, half ? float32ToFloat16(model) : model);
  }
  return sources.get(key)!;
}

/** MinMax ranges from two photos (loading does not depend on the method; one calibration serves every case). */
function ranges(fixture: string) {
  if (!rangeCache.has(fixture)) {
    rangeCache.set(
      fixture,
      calibrateOnImages(source(fixture, false), PHOTOS.slice(0, 2), {
        spec: FIXTURE_PREPROCESS[fixture],
        config: getPreset('U8S8'),
      }).then((r) => r.ranges),
    );
  }
  return rangeCache.get(fixture)!;
}

interface Case {
  readonly label: string;
  readonly fixture: (typeof FIXTURES)[number];
  readonly half: boolean;
  readonly write: (model: ModelProto, fixture: string) => Promise<ModelProto>;
}

const quantized = (config: QuantConfig) => async (model: ModelProto, fixture: string) =>
  quantizeModel(model, await ranges(fixture), config).model;

const CASES: Case[] = [];
for (const fixture of FIXTURES) {
  for (const half of [false, true]) {
    for (const name of PRESET_NAMES) {
      for (const perChannel of [false, true]) {
        CASES.push({
          label: `${name}${perChannel ? ' per channel' : ''}`,
          fixture,
          half,
          write: quantized(preset(name, { perChannel })),
        });
      }
    }
    CASES.push({ label: 'BF16', fixture, half, write: async (model) => quantizeBf16(model).model });
  }
  const firstConv = fixture === 'mnist.onnx' ? 'Convolution28' : 'Conv_0';
  const convOutput = (model: ModelProto) => model.graph!.node.find((n) => n.op_type === 'Conv')!.output[0];
  CASES.push(
    {
      label: 'float16 scales (QuantizeFP16, UseFP32Scale off)',
      fixture,
      half: true,
      write: quantized(preset('XINT8', { extraOptions: { QuantizeFP16: true, UseFP32Scale: false } })),
    },
    {
      label: 'UseFP32Scale',
      fixture,
      half: true,
      write: quantized(preset('VINT8', { extraOptions: { QuantizeFP16: true, UseFP32Scale: true } })),
    },
    {
      label: 'ConvertFP16ToFP32',
      fixture,
      half: true,
      write: quantized(preset('A8W8', { extraOptions: { ConvertFP16ToFP32: true } })),
    },
    {
      label: 'a subgraph converted to float32',
      fixture,
      half: true,
      write: quantized(preset('U8S8', { fp16SubgraphsToFp32: [{ starts: [firstConv], ends: [firstConv] }] })),
    },
    {
      label: 'mixed precision (one activation at 16 bits)',
      fixture,
      half: false,
      write: async (model, f) =>
        quantizeModel(
          model,
          await ranges(f),
          preset('A8W8', {
            extraOptions: { TensorQuantOverrides: { [convOutput(model)]: [{ quant_type: 'int16' }] } },
          }),
        ).model,
    },
    {
      label: 'mixed precision in a float16 model',
      fixture,
      half: true,
      write: async (model, f) =>
        quantizeModel(
          model,
          await ranges(f),
          preset('XINT8', {
            extraOptions: { TensorQuantOverrides: { [convOutput(model)]: [{ quant_type: 'int16' }] } },
          }),
        ).model,
    },
    {
      label: 'a node excluded',
      fixture,
      half: false,
      write: quantized(preset('S8S8', { nodesToExclude: [firstConv] })),
    },
    {
      label: 'Conv excluded by op type',
      fixture,
      half: true,
      write: quantized(preset('U8S8', { opTypesToExclude: ['Conv'] })),
    },
  );
}
CASES.push(
  {
    label: 'the post-processing tail excluded',
    fixture: 'ultraface-rfb-320.onnx',
    half: false,
    write: quantized(preset('XINT8', { subgraphsToExclude: [ULTRAFACE_TAIL] })),
  },
  {
    label: 'the post-processing tail excluded',
    fixture: 'ultraface-rfb-320.onnx',
    half: true,
    write: quantized(preset('A8W8', { subgraphsToExclude: [ULTRAFACE_TAIL] })),
  },
);

describe("written models at onnxruntime's default session options and at basic, node and web", () => {
  it.each(CASES.map((c) => [c.fixture, c.half ? 'float16' : 'float32', c.label, c] as const))(
    '%s (%s) %s',
    async (fixture, _type, _label, c) => {
      const written = await c.write(source(fixture, c.half), fixture);
      const bytes = encode(written);
      const input = photoInput(written, fixture);
      const basic = await runIn('node', bytes, 'basic', input);
      const runs: [string, Outputs][] = [
        ['node default', await runIn('node', bytes, undefined, input)],
        ['node all', await runIn('node', bytes, 'all', input)],
        ['web default', await runIn('web', bytes, undefined, input)],
        ['web basic', await runIn('web', bytes, 'basic', input)],
      ];
      // What onnxruntime-web computes at its default options is what onnxruntime-node computes at 'all' (graph
      // optimization 'all' is web's default too): the figure `qstudio evaluate` reports first is the page user's as well.
      if (!c.half)
        for (const k of Object.keys(basic))
          expect(cosineSimilarity(runs[2][1][k], runs[1][1][k]), `web default against node all, ${k}`).toBeGreaterThan(
            0.9999,
          );
      for (const [where, outputs] of runs) {
        expect(Object.keys(outputs).sort(), where).toEqual(Object.keys(basic).sort());
        for (const [k, v] of Object.entries(outputs)) {
          expect(v.every(Number.isFinite), `${where} ${k} finite`).toBe(true);
          // The fused kernels round differently from Q/DQ → float op → Q/DQ; they must still compute the same model.
          expect(cosineSimilarity(v, basic[k]), `${where} ${k} against node basic`).toBeGreaterThan(0.98);
        }
      }
    },
  );
});
