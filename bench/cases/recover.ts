/**
 * One fixture detector quantized with XINT8 plus one accuracy-recovery step, judged as bench/cases/fidelity.ts
 * judges (calibrate and tune on COCO 1–16, mean output cosine to the float model on COCO 17–24), with the time
 * of each phase in Node (onnxruntime-node runs the models; the optimizers are plain TypeScript).
 * Usage: recover.ts <model> <variant> [iterations] where variant is plain, cle, biasCorrection, adaround, adaquant.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions } from '../../src/core/quantize/config.ts';
import { quantizeWithRecovery } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { calibrateOnImages } from '../../src/cli/calibration/calibrateOnImages.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { createSession, nodeRuntime, type Feeds } from '../../src/cli/runtime/ortNode.ts';
import { nodeGramProduct } from '../../src/cli/runtime/gramProduct.ts';
import { DETECTORS } from './detectors.ts';
import { heldOutFiles, sampleCosine } from './heldOut.ts';

const [name, variant, iterationArg] = process.argv.slice(2);
const detector = DETECTORS[name];
const original = decode(fs.readFileSync(path.join(import.meta.dirname, '../../../shared/fixtures/models', name)));
const { calibration, evaluation } = heldOutFiles();
const feedsOf = (files: readonly string[]): Feeds[] => imageFeeds(original, { files }, detector.preprocess).feeds;

const finetune = variant === 'adaround' || variant === 'adaquant' ? variant : undefined;
const config = withOptions(getPreset('XINT8'), {
  includeCle: variant === 'cle',
  includeBiasCorrection: variant === 'biasCorrection',
  includeFastFt: finetune !== undefined,
  // The algorithm's own learning rate.
  ...(finetune
    ? {
        extraOptions: {
          FastFinetune: {
            OptimAlgorithm: finetune,
            NumIterations: Number(iterationArg ?? 100),
            LearningRate: undefined,
          },
        },
      }
    : {}),
});

let calibrationSeconds = 0;
const result = await quantizeWithRecovery(original, config, {
  configName: 'XINT8',
  runtime: nodeRuntime(feedsOf(calibration)),
  // QS_GRAM=ts keeps the optimizers' products in TypeScript (to compare), else onnxruntime-node's MatMul.
  gramProduct: process.env.QS_GRAM === 'ts' ? undefined : nodeGramProduct,
  // QS_RECOVER_MERGE_MB: merge depths into passes of this much layer data (faster, less sequential), to compare.
  mergeDepths: !!process.env.QS_RECOVER_MERGE_MB,
  layerDataBudgetBytes: process.env.QS_RECOVER_MERGE_MB ? Number(process.env.QS_RECOVER_MERGE_MB) * 2 ** 20 : undefined,
  calibrate: async (model) => {
    const t = performance.now();
    const { ranges } = await calibrateOnImages(model, calibration, { spec: detector.preprocess, config });
    calibrationSeconds = (performance.now() - t) / 1000;
    return ranges;
  },
  onProgress: (p) => {
    if (p.phase === 'gather' && p.stage % 10 === 0) process.stderr.write(`stage ${p.stage}/${p.stages}\n`);
  },
});

// Judged against the model as loaded: CLE and preparation keep the float function, so this is the user's view.
const floatSession = await createSession(encode(original));
const quantSession = await createSession(encode(result.model));
const cosines: number[] = [];
for (const feeds of feedsOf(evaluation)) {
  const a = await floatSession.run(feeds);
  const b = await quantSession.run(feeds);
  const { cosine } = sampleCosine(a, b);
  if (cosine !== null) cosines.push(cosine);
}
const r = result.recovery;
const algorithmSeconds =
  variant === 'cle'
    ? r.seconds.cle
    : variant === 'plain'
      ? 0
      : r.seconds.gather + (r.finetune?.seconds ?? 0) + (r.biasCorrection?.seconds ?? 0);
console.log(
  JSON.stringify({
    model: name,
    variant,
    cosineMean: +(cosines.reduce((x, y) => x + y, 0) / cosines.length).toFixed(5),
    cosineMin: +Math.min(...cosines).toFixed(5),
    touched: r.cle
      ? r.cle.pairs.length
      : r.finetune
        ? r.finetune.layers.filter((l) => !l.kept).length
        : r.biasCorrection
          ? r.biasCorrection.layers.length
          : 0,
    skipped: r.cle ? r.cle.skipped.length : r.skippedLayers.length,
    lossBefore: r.finetune ? +r.finetune.lossBefore.toPrecision(4) : null,
    lossAfter: r.finetune ? +r.finetune.lossAfter.toPrecision(4) : null,
    iterations: r.finetune ? config.extraOptions.FastFinetune.NumIterations : null,
    algorithmSeconds: +algorithmSeconds.toFixed(2),
    gatherSeconds: +r.seconds.gather.toFixed(1),
    calibrationSeconds: +calibrationSeconds.toFixed(1),
    totalSeconds: +r.seconds.total.toFixed(1),
    passes: r.stages,
  }),
);
