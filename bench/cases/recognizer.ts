/**
 * How a quantized CTC text recognizer (PP-OCRv4's, SVTR attention blocks) keeps its float model's text:
 * calibrate on text lines 00–15 of ../shared/fixtures/images/textlines, judge on lines 16–31 (held out)
 * by onnxruntime-node running the written model; both models' outputs decoded by greedy CTC; lines whose
 * decoding equals the float model's, the character error rate against the float decoding (pooled), the
 * step top-1 agreement. Usage: recognizer.ts <preset> <variant>, variant a '+'-joined list of
 * 'perChannel', 'attention' (the transformer rules: LayerNormalization, Softmax's known range, …),
 * 'sq' (SmoothQuant), 'mixed' (automatic mixed precision within the default budget, its sensitivities measured
 * on 4 of the calibration lines, at most 60 measurements, core/search/mixedPrecision.ts), 'adaround' or 'adaquant' (fast finetune on
 * the calibration lines, after the mixed-precision choice), 'bc' (empirical bias correction on the calibration lines,
 * after the choice), or 'plain'; optional arguments after them: method=<calibration method> replaces the preset's
 * (the 16-bit tensors of mixed precision take the extremes seen, whatever it is), budget=act16=…,w16=…,float=…
 * replaces the default mixed-precision budget, stages=act16+w16+float (kinds searched together, stages
 * '/'-separated) replaces the search's default stages, iterations=<n> the fine-tuning's steps per layer. The written file is also loaded and
 * run in onnxruntime-web, and checked by onnx.checker where its opset is at most 17.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { quantizeWithRecovery } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod } from '../../src/core/quantize/config.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { nodeGramProduct } from '../../src/cli/runtime/gramProduct.ts';
import { chooseMixedPrecision, type MixedPrecisionResult } from '../../src/core/search/mixedPrecision.ts';
import { DEFAULT_PRECISION_BUDGET, parsePrecisionBudget } from '../../src/core/quantize/precisionBudget.ts';
import {
  createTextJudge,
  RECOGNIZER_PATH,
  recognizerCaseArguments,
  recognizerPresetLabel,
  recognizerVariant,
  textLineFiles,
  textLineTensor as tensorOf,
} from './recognizerSetup.ts';
import { checkWrittenFile } from './writtenFile.ts';
import type { ModelProto } from '../../src/core/onnx/model.ts';

const [preset, variant = 'plain', ...caseArguments] = process.argv.slice(2);
const { method, budget: budgetArgument, stages, iterations } = recognizerCaseArguments(caseArguments);
const budget = budgetArgument ? parsePrecisionBudget(budgetArgument) : DEFAULT_PRECISION_BUDGET;
const model = decode(fs.readFileSync(RECOGNIZER_PATH));
const { calibration, evaluation } = textLineFiles();

const options = recognizerVariant(variant);
let config = withOptions(getPreset(preset), {
  ...options.config,
  ...(options.perChannel ? { perChannel: true } : {}),
  ...(method ? { calibrationMethod: method as CalibrationMethod } : {}),
  extraOptions: {
    ...options.config.extraOptions,
    FastFinetune: {
      ...options.config.extraOptions?.FastFinetune,
      ...(iterations !== undefined ? { NumIterations: iterations } : {}),
    },
  },
});

const calibrationTensors = calibration.map(tensorOf);
const calibrationRuntime = nodeRuntime(calibrationTensors.map((x) => ({ x })));
let calibrationSeconds = 0;
const calibrate = async (m: ModelProto) => {
  const t = performance.now();
  const { ranges } = await calibrateOnTensors(m, calibrationTensors, { config });
  calibrationSeconds += (performance.now() - t) / 1000;
  return ranges;
};
let mixed: MixedPrecisionResult | undefined;
let searchSeconds = 0;
let tuneSeconds = 0;
const searchRanges = options.mixed ? await calibrate(model) : undefined;
if (searchRanges) {
  const t = performance.now();
  mixed = await chooseMixedPrecision(model, searchRanges, config, calibrationRuntime, {
    budget,
    target: 0.999,
    samples: 4,
    maxMeasurements: 60,
    stages,
    onStep: (step) =>
      process.stderr.write(`mixed [${step.index}] ${step.phase} ×${step.units}: cosine ${step.cosine.toFixed(5)}\n`),
  });
  searchSeconds = (performance.now() - t) / 1000;
  config = mixed.config;
}
const t0 = performance.now();
const {
  model: quantized,
  report,
  recovery,
} = await quantizeWithRecovery(model, config, {
  // The search's ranges where nothing before calibration changes the model (no CLE, no SmoothQuant).
  calibrate: async (m: ModelProto) =>
    searchRanges && !config.includeCle && !config.includeSq ? searchRanges : calibrate(m),
  runtime: calibrationRuntime,
  gramProduct: nodeGramProduct,
  configName: preset,
  onProgress: (p) => {
    if (p.phase === 'layer') process.stderr.write(`tuned ${p.id} (${p.done}/${p.total})\n`);
  },
});
const recovers = config.includeFastFt || config.includeBiasCorrection;
if (recovers) tuneSeconds = (performance.now() - t0) / 1000;
const bytes = encode(quantized);
const judgeLines = await createTextJudge(encode(model), evaluation);
const judgeText = async (bytes: Uint8Array) => {
  const { kl: _kl, ...text } = await judgeLines(bytes);
  return text;
};
const judged = await judgeText(bytes);
// With mixed precision and fine-tuning or bias correction, the chosen precisions alone too (the same choice, not tuned).
const untuned =
  mixed && recovers && searchRanges
    ? await judgeText(
        encode(
          quantizeModel(model, searchRanges, { ...config, includeFastFt: false, includeBiasCorrection: false }).model,
        ),
      )
    : undefined;
// The written file: onnxruntime-web loads and runs it, onnx.checker checks it where its opset allows.
const { webRuns, checker } = await checkWrittenFile(
  path.join(import.meta.dirname, '../tmp', `recognizer-${preset}-${variant}.onnx`),
  quantized,
  bytes,
  { x: tensorOf(evaluation[0]) },
);
const budgetUse = (k: 'act16' | 'w16' | 'float') =>
  mixed ? `${mixed.budget[k].used}/${mixed.budget[k].limit} of ${mixed.budget[k].of}` : undefined;
console.log(
  JSON.stringify({
    model: 'ch_PP-OCRv4_rec_infer.onnx',
    preset: recognizerPresetLabel(preset, caseArguments),
    variant,
    ...judged,
    ...(untuned
      ? { untunedLinesMatching: untuned.linesMatching, untunedCer: untuned.cer, untunedStepTop1: untuned.stepTop1 }
      : {}),
    floatNodes: report.counts.float,
    activationPairs: report.counts.activationPairs,
    opset: `${report.opset.before}→${report.opset.after}`,
    smoothed: recovery.smoothQuant?.tensors.length ?? 0,
    calibrationSeconds: +calibrationSeconds.toFixed(1),
    ...(mixed
      ? {
          act16: budgetUse('act16'),
          w16: budgetUse('w16'),
          float: budgetUse('float'),
          searchCosine: `${mixed.startCosine.toFixed(4)}→${mixed.cosine.toFixed(4)}`,
          measurements: mixed.steps.length,
          searchSeconds: +searchSeconds.toFixed(0),
          chosen: JSON.stringify(mixed.chosen),
        }
      : {}),
    ...(recovers ? { tuneSeconds: +tuneSeconds.toFixed(0) } : {}),
    webRuns,
    checker,
  }),
);
