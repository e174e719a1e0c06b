/**
 * What the ladder's fine-tuned rungs cost when they share layers (issue 36 point 4): a fine-tuning rung, then the
 * exclusion search from it (each of its steps quantizes and fine-tunes the configuration again with one node more kept
 * float, as the ladder's last rung does when a fine-tuned rung measured best), through ladderMeasures as the command
 * line's ladder runs them, with the memo of tuned layers (TunedLayerMemo) or without it (`tunedLayerBudgetBytes` 0).
 * Per phase: CPU seconds (process.cpuUsage), wall seconds, layers reused, and the figures each step measured; the chosen
 * model's SHA-256 (the same with and without the memo when the reuse is exact). Models: the PP-OCRv4 recognizer (A8W8
 * per channel + attention rules, lines 00–15 tune, 16–31 judged at 'all', sequence target 0.875) or YOLOX-nano (XINT8,
 * COCO 1–16 / 17–24, cosine target 0.99).
 * Usage: finetuneReuse.ts <recognizer|yolox> <memo|none> <adaround|adaquant> <iterations> <exclusion steps>
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { withOptions, type QuantConfig } from '../../src/core/quantize/config.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { ladderMeasures, type RungDetail } from '../../src/core/recovery/ladderMeasure.ts';
import type { Rung } from '../../src/core/recovery/ladder.ts';
import { calibrateOnFeeds, calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { nodeGramProduct } from '../../src/cli/runtime/gramProduct.ts';
import { nodeDenseProduct } from '../../src/cli/runtime/denseProduct.ts';
import { RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { DETECTORS } from './detectors.ts';
import { heldOutFolders } from './heldOut.ts';

const [modelArg, memoArg, algorithmArg, iterationArg, stepArg] = process.argv.slice(2);
const algorithm = algorithmArg === 'adaquant' ? 'adaquant' : 'adaround';
const recognizer = modelArg === 'recognizer';
const file = recognizer
  ? RECOGNIZER_PATH
  : path.resolve(import.meta.dirname, '../../../shared/fixtures/models/yolox-nano.onnx');
const model = decode(fs.readFileSync(file));

function data() {
  if (recognizer) {
    const { calibration, evaluation } = textLineFiles();
    const tune = calibration.map((f) => ({ x: textLineTensor(f) }));
    const judge = evaluation.map((f) => ({ x: textLineTensor(f) }));
    return {
      tune,
      judge,
      calibrate: (m: typeof model, config: QuantConfig) =>
        calibrateOnTensors(
          m,
          tune.map((f) => f.x),
          { config },
        ).then((r) => r.ranges),
    };
  }
  const { calib, judge } = heldOutFolders();
  const feeds = (dir: string) =>
    imageFeeds(model, { files: listImageFiles(dir).files }, DETECTORS['yolox-nano.onnx'].preprocess).feeds;
  const tune = feeds(calib);
  return {
    tune,
    judge: feeds(judge),
    calibrate: (m: typeof model, config: QuantConfig) => calibrateOnFeeds(m, tune, { config }).then((r) => r.ranges),
  };
}

const { tune, judge, calibrate } = data();
const metric = recognizer ? 'sequence' : 'cosine';
const target = { metric, value: recognizer ? 0.875 : 0.99 } as const;
const measures = ladderMeasures(
  {
    model,
    calibrate,
    tuning: nodeRuntime(tune),
    evaluation: nodeRuntime(judge, 'all'),
    gramProduct: nodeGramProduct,
    denseProduct: nodeDenseProduct,
    ...(memoArg === 'none' ? { tunedLayerBudgetBytes: 0 } : {}),
  },
  metric,
  { maxExclusionSteps: Number(stepArg) },
);
const base = recognizer
  ? withOptions(getPreset('A8W8'), { perChannel: true, enableNpuTransformer: true })
  : getPreset('XINT8');
const config = withOptions(base, {
  includeFastFt: true,
  extraOptions: { FastFinetune: { OptimAlgorithm: algorithm, NumIterations: Number(iterationArg) } },
});
const recipe = {
  preset: recognizer ? 'A8W8' : 'XINT8',
  perChannel: recognizer,
  cle: false,
  finetune: algorithm,
  exclusions: false,
  transformer: recognizer,
} as const;

const sha = (d: RungDetail) => createHash('sha256').update(encode(d.quantized)).digest('hex').slice(0, 16);
const phases = [];
const start = process.cpuUsage();
for (const phase of ['rung', 'exclusion search'] as const) {
  const load = os.loadavg()[0];
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const rung: Rung = {
    index: phases.length + 1,
    label: phase,
    step: 'ours',
    recipe: { ...recipe, exclusions: phase !== 'rung' },
  };
  const m = phase === 'rung' ? await measures.measure(config, rung) : await measures.exclude!(config, target, rung);
  const c = process.cpuUsage(c0);
  const d = m.detail as RungDetail;
  phases.push({
    phase,
    cpuSeconds: +((c.user + c.system) / 1e6).toFixed(1),
    wallSeconds: +((performance.now() - t0) / 1000).toFixed(1),
    score: +m.score.toFixed(5),
    chosenSha256: sha(d),
    chosenReused: d.recovery.reused ?? null,
    steps: d.steps?.map((s) => ({
      step: s.step,
      excluded: s.candidate?.kind === 'subgraph' ? `tail from ${s.candidate.node}` : (s.candidate?.node ?? null),
      cosine: +s.cosine.toFixed(5),
      figure: s.figure === undefined ? null : +s.figure.toFixed(5),
      kept: s.kept,
      seconds: +s.seconds.toFixed(1),
    })),
    loadAverage: +load.toFixed(1),
  });
  console.error(JSON.stringify(phases.at(-1)));
}
const all = process.cpuUsage(start);
console.log(
  JSON.stringify({
    model: path.basename(file),
    memo: memoArg,
    algorithm,
    iterations: Number(iterationArg),
    maxExclusionSteps: Number(stepArg),
    tuned: tune.length,
    judged: judge.length,
    cpuSeconds: +((all.user + all.system) / 1e6).toFixed(1),
    phases,
  }),
);
