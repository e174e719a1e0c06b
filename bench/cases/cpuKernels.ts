/**
 * One model and preset judged twice on held-out data: as the studio measures (onnxruntime-node at graph
 * optimization 'basic': the model's own Q/DQ arithmetic) and as onnxruntime's CPU provider runs it by default
 * ('all': Q/DQ fused into QLinearConv / QLinearMatMul / QGemm, whose U8S8 products saturate in 16 bits on x86
 * CPUs without VNNI); each with and without saturation-safe weights (quantize/cpuKernelSafety.ts).
 *
 * Usage: cpuKernels.ts <yolox|ultraface|detector|recognizer> <preset> [perChannel] [attention] [method=<m>] [mixed search=<basic|all>]
 *   mixed: automatic mixed precision within the default budget (core/search/mixedPrecision.ts; 4 calibration
 *   samples, at most 60 measurements, target cosine 0.999, as bench/cases/recognizer.ts), its measurements run at
 *   graph optimization `search` (what `qstudio quantize --mixed-precision --judge-optimization` does); searched once
 *   for the plain weights and once with saturation-safe weights in the configuration, each written model judged at
 *   both levels.
 * Splits: COCO 1–16 calibrate, 17–24 judged (YOLOX-nano, UltraFace); the text detector's 16 calibration scenes
 * and 21 held-out scenes (textScenes.ts); the recognizer's text lines 00–15 and 16–31 (recognizerSetup.ts).
 * Prints one JSON row: basic/all without safe weights, safeBasic/safeAll with them (recognizer: lines and CER).
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode, type ModelProto } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { presetDefinition, type PresetName } from '../../src/core/quantize/presets.ts';
import { validateConfig } from '../../src/core/quantize/config.ts';
import { createOutputJudge } from '../../src/core/evaluate/outputJudge.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { float32Tensor, nodeRuntime, type Feeds, type OrtTensor } from '../../src/cli/runtime/ortNode.ts';
import { DETECTORS } from './detectors.ts';
import { TEXT_DETECTOR, textSceneFeeds } from './textScenes.ts';
import { createTextJudge, RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { chooseMixedPrecision, type MixedPrecisionResult } from '../../src/core/search/mixedPrecision.ts';
import { DEFAULT_PRECISION_BUDGET } from '../../src/core/quantize/precisionBudget.ts';
import { isGraphOptimization, type GraphOptimization } from '../../src/core/runtime/graphOptimization.ts';

const [which, preset, ...rest] = process.argv.slice(2);
const perChannel = rest.includes('perChannel');
const attention = rest.includes('attention');
const method = rest.find((a) => a.startsWith('method='))?.slice('method='.length);
const mixedPrecision = rest.includes('mixed');
const searchLevel = (rest.find((a) => a.startsWith('search='))?.slice('search='.length) ??
  'basic') as GraphOptimization;
if (!isGraphOptimization(searchLevel)) throw new Error(`search=${searchLevel}: basic or all`);
const fixtures = path.join(import.meta.dirname, '../../../shared/fixtures');

interface Setup {
  model: ModelProto;
  calib: OrtTensor[];
  /** Judges a quantized model's bytes at both optimization levels. */
  judge: (quantized: ModelProto) => Promise<Record<string, unknown>>;
}

async function outputSetup(model: ModelProto, calib: OrtTensor[], judged: Feeds[]): Promise<Setup> {
  const basic = await createOutputJudge(model, nodeRuntime(judged, 'basic'));
  const all = await createOutputJudge(model, nodeRuntime(judged, 'all'));
  return {
    model,
    calib,
    judge: async (q) => ({
      basic: +(await basic.score(q)).cosine.toFixed(5),
      all: +(await all.score(q)).cosine.toFixed(5),
    }),
  };
}

async function setup(): Promise<Setup> {
  if (which === 'yolox' || which === 'ultraface') {
    const name = which === 'yolox' ? 'yolox-nano.onnx' : 'ultraface-rfb-320.onnx';
    const model = decode(fs.readFileSync(path.join(fixtures, 'models', name)));
    const coco = listImageFiles(path.join(fixtures, 'images/coco')).files;
    const feeds = (files: string[]) => imageFeeds(model, { files }, DETECTORS[name].preprocess).feeds;
    return outputSetup(
      model,
      feeds(coco.slice(0, 16)).map((f) => Object.values(f)[0]),
      feeds(coco.slice(16, 24)),
    );
  }
  if (which === 'detector') {
    const model = decode(fs.readFileSync(TEXT_DETECTOR.model));
    const input = model.graph!.input[0].name!;
    const tensors = (set: 'calib' | 'judge') => textSceneFeeds(set).map((s) => float32Tensor(s.data, s.dims));
    return outputSetup(
      model,
      tensors('calib'),
      tensors('judge').map((t) => ({ [input]: t })),
    );
  }
  if (which === 'recognizer') {
    const bytes = new Uint8Array(fs.readFileSync(RECOGNIZER_PATH));
    const { calibration, evaluation } = textLineFiles();
    const basic = await createTextJudge(bytes, evaluation, 'basic');
    const all = await createTextJudge(bytes, evaluation, 'all');
    return {
      model: decode(bytes),
      calib: calibration.map(textLineTensor),
      judge: async (q) => {
        const b = encode(q);
        const [x, y] = [await basic(b), await all(b)];
        return { basic: x.linesMatching, basicCer: x.cer, all: y.linesMatching, allCer: y.cer };
      },
    };
  }
  throw new Error(`unknown model "${which}"`);
}

const s = await setup();
const json: Record<string, unknown> = {
  ...presetDefinition(preset as PresetName).input,
  perChannel,
  enableNpuTransformer: attention,
};
if (method) json.calibrationMethod = method;
const t0 = performance.now();
const { ranges } = await calibrateOnTensors(s.model, s.calib, { config: validateConfig(json) });
const calibrationSeconds = +((performance.now() - t0) / 1000).toFixed(1);
const judged: Record<string, unknown>[] = [];
let changed = 0;
const searches: { safe: boolean; result: MixedPrecisionResult; seconds: number }[] = [];
const calibrationFeeds = s.calib.map((t) => ({ [s.model.graph!.input[0].name!]: t }));
for (const safe of [false, true]) {
  let config = validateConfig({ ...json, saturationSafeWeights: safe });
  if (mixedPrecision) {
    const t = performance.now();
    const result = await chooseMixedPrecision(s.model, ranges, config, nodeRuntime(calibrationFeeds, searchLevel), {
      budget: DEFAULT_PRECISION_BUDGET,
      target: 0.999,
      samples: 4,
      maxMeasurements: 60,
      onStep: (step) =>
        process.stderr.write(
          `mixed${safe ? ' (safe)' : ''} [${step.index}] ${step.phase} ×${step.units}: cosine ${step.cosine.toFixed(5)}\n`,
        ),
    });
    searches.push({ safe, result, seconds: (performance.now() - t) / 1000 });
    config = result.config;
  }
  const { model: quantized, report } = quantizeModel(s.model, ranges, config, preset);
  judged.push(await s.judge(quantized));
  if (safe) changed = report.saturationSafeWeights?.length ?? 0;
  else judged.push({ weights: report.precision.weights });
}
const [plain, { weights }, safe] = judged;
const prefixed = (prefix: string, r: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [`${prefix}${k[0].toUpperCase()}${k.slice(1)}`, v]));
console.log(
  JSON.stringify({
    model: which,
    preset: `${preset}${method ? ` ${method}` : ''}`,
    variant: [
      perChannel ? 'perChannel' : 'perTensor',
      ...(attention ? ['attention'] : []),
      ...(mixedPrecision ? [`mixed searched at '${searchLevel}'`] : []),
    ].join('+'),
    ...plain,
    ...prefixed('safe', safe),
    weights,
    safeWeightsChanged: changed,
    calibrationSeconds,
    ...Object.fromEntries(
      searches.map(({ safe, result, seconds }) => [
        safe ? 'safeSearch' : 'search',
        {
          cosine: `${result.startCosine.toFixed(4)}→${result.cosine.toFixed(4)}`,
          act16: result.chosen.act16.length,
          w16: result.chosen.w16.length,
          float: result.chosen.float.length,
          measurements: result.steps.length,
          seconds: +seconds.toFixed(0),
          chosen: result.chosen,
        },
      ]),
    ),
  }),
);
