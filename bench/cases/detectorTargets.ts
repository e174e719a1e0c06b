/**
 * Issue 14's target table on the PP-OCRv4 text detector, one weight granularity per process, measured through the
 * product's own path: each row's configuration is a ladder rung's (core/recovery/ladder.ts rungConfig: a preset, the
 * function rules, CLE, the calibration method, fine-tuning), and it is calibrated, recovered and judged by
 * core/recovery/ladderMeasure.ts wired as `qstudio ladder` wires it (calibrateOnFeeds and onnxruntime-node on the
 * scenes read from PNG files as the command line reads them, the same matrix products). Rows sharing a calibration
 * setting share its ranges, as the ladder's rungs do; each row reports its calibration's time apart from its own.
 *
 * Calibration and fine-tuning see textScenes' 16 calibration scenes only; every row is judged on the 21 held-out
 * scenes (onnxruntime-node running the quantized model's bytes; mean output cosine).
 *
 * Usage: detectorTargets.ts weights=perTensor|perChannel rows=<id,...> [seed=<calibration scenes' seed>]
 *   rows: minmax, best (Sequential + function rules; + CLE per tensor), bc, adaround200, adaround1000, adaquant200,
 *   ort (ONNX Runtime's quantize_static configuration: S8S8, Percentile, per tensor, no rules).
 * `seed` draws the calibration scenes' line positions and scales anew (same backgrounds and lines: a second
 * calibration split; the held-out scenes unchanged).
 * Prints one JSON line: { rows: [...] }.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode } from '../../src/core/onnx/index.ts';
import { withOptions, type QuantConfig } from '../../src/core/quantize/config.ts';
import { rungConfig, type Rung, type RungRecipe } from '../../src/core/recovery/ladder.ts';
import { ladderMeasures } from '../../src/core/recovery/ladderMeasure.ts';
import { calibrateOnFeeds } from '../../src/cli/calibration/calibrateOnImages.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { nodeGramProduct } from '../../src/cli/runtime/gramProduct.ts';
import { nodeDenseProduct } from '../../src/cli/runtime/denseProduct.ts';
import { TEXT_DETECTOR, writeTextScenes } from './textScenes.ts';
import { caseNumber, caseOption } from './caseArguments.ts';

const flags = process.argv.slice(2);
const perChannel = caseOption('weights', flags) === 'perChannel';
const seed = caseNumber('seed', flags);
const rowIds = (caseOption('rows', flags) ?? 'minmax,best').split(',');
const tmp = path.resolve(import.meta.dirname, '../tmp');

/** A set's scenes as PNG files (lossless: the tensors the in-memory scenes give), written once. */
function scenes(set: 'calib' | 'judge', seedOf?: number): string {
  const dir = path.join(tmp, `text-scenes-${set}${seedOf === undefined ? '' : `-seed${seedOf}`}`);
  if (!fs.existsSync(dir)) fs.renameSync(writeTextScenes(set, `${dir}.${process.pid}`, seedOf), dir);
  return dir;
}

interface RowSpec {
  readonly label: string;
  readonly recipe: RungRecipe;
  readonly iterations?: number;
  readonly biasCorrection?: boolean;
}

const best: RungRecipe = {
  preset: 'A8W8',
  perChannel,
  cle: !perChannel,
  finetune: null,
  exclusions: false,
  transformer: true,
  calibrationMethod: 'Sequential',
};
const best_ = `Sequential + function rules${perChannel ? '' : ' + CLE'}`;
const SPECS: Record<string, RowSpec> = {
  minmax: { label: 'MinMax', recipe: { preset: 'A8W8', perChannel, cle: false, finetune: null, exclusions: false } },
  best: { label: best_, recipe: best },
  bc: { label: `${best_} + bias correction`, recipe: best, biasCorrection: true },
  adaround200: { label: `${best_} + AdaRound 200`, recipe: { ...best, finetune: 'adaround' }, iterations: 200 },
  adaround1000: {
    label: `${best_} + AdaRound 1000 (Quark's default)`,
    recipe: { ...best, finetune: 'adaround' },
    iterations: 1000,
  },
  adaquant200: { label: `${best_} + AdaQuant 200`, recipe: { ...best, finetune: 'adaquant' }, iterations: 200 },
  ort: {
    label: "ONNX Runtime's quantize_static: S8S8 Percentile, no rules",
    recipe: {
      preset: 'S8S8',
      perChannel: false,
      cle: false,
      finetune: null,
      exclusions: false,
      calibrationMethod: 'Percentile',
    },
  },
};
for (const id of rowIds) if (!SPECS[id]) throw new Error(`unknown row "${id}": ${Object.keys(SPECS).join(', ')}`);

/** A row's configuration: the rung's, with its iterations and bias correction. */
function configOf(spec: RowSpec): QuantConfig {
  return withOptions(rungConfig(spec.recipe), {
    ...(spec.biasCorrection ? { includeBiasCorrection: true } : {}),
    ...(spec.iterations !== undefined ? { extraOptions: { FastFinetune: { NumIterations: spec.iterations } } } : {}),
  });
}

const model = decode(fs.readFileSync(TEXT_DETECTOR.model));
const calibDir = scenes('calib', seed);
const tuning = imageFeeds(model, { dir: calibDir }, TEXT_DETECTOR.preprocess);
const judged = imageFeeds(model, { dir: scenes('judge') }, TEXT_DETECTOR.preprocess);

// Each calibration's wall and CPU seconds, by the configuration that asked for it (the measures share ranges by setting).
let calibration: { seconds: number; cpuSeconds: number };
const measures = ladderMeasures(
  {
    model,
    calibrate: async (m, config) => {
      const [t0, c0] = [performance.now(), process.cpuUsage()];
      const { ranges } = await calibrateOnFeeds(m, tuning.feeds, { config });
      const c = process.cpuUsage(c0);
      calibration = { seconds: (performance.now() - t0) / 1000, cpuSeconds: (c.user + c.system) / 1e6 };
      return ranges;
    },
    tuning: nodeRuntime(tuning.feeds),
    evaluation: nodeRuntime(judged.feeds),
    gramProduct: nodeGramProduct,
    denseProduct: nodeDenseProduct,
  },
  'cosine',
);

const calibrationOf = new Map<string, { seconds: number; cpuSeconds: number }>();
const rows = [];
for (const [i, id] of rowIds.entries()) {
  const spec = SPECS[id];
  const config = configOf(spec);
  const rung: Rung = { index: i + 1, label: spec.label, step: 'ours', recipe: spec.recipe };
  calibration = { seconds: 0, cpuSeconds: 0 };
  const [t0, c0] = [performance.now(), process.cpuUsage()];
  const m = await measures.measure(config, rung);
  const c = process.cpuUsage(c0);
  // Ranges by calibration setting (method, weights, rules, CLE): a row reusing them reports the calibration that made them.
  const key = JSON.stringify([
    config.calibrationMethod,
    config.perChannel,
    config.enableNpuTransformer,
    config.includeCle,
    config.activationType,
  ]);
  if (calibration.seconds > 0) calibrationOf.set(key, calibration);
  const cal = calibrationOf.get(key) ?? { seconds: NaN, cpuSeconds: NaN };
  const own = {
    seconds: (performance.now() - t0) / 1000 - calibration.seconds,
    cpuSeconds: (c.user + c.system) / 1e6 - calibration.cpuSeconds,
  };
  rows.push({
    row: id,
    label: spec.label,
    weights: config.perChannel ? 'per channel' : 'per tensor',
    calibrationSeed: seed ?? 'default',
    cosine: +m.score.toFixed(5),
    judged: judged.feeds.length,
    calibratedOn: tuning.feeds.length,
    calibrationSeconds: +cal.seconds.toFixed(1),
    calibrationCpuSeconds: +cal.cpuSeconds.toFixed(1),
    stepsSeconds: +own.seconds.toFixed(1),
    stepsCpuSeconds: +own.cpuSeconds.toFixed(1),
  });
  console.error(JSON.stringify(rows.at(-1)));
}
console.log(JSON.stringify({ rows }));
