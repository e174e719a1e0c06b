/**
 * What fine-tuning costs against plain quantization: the PP-OCRv4 text detector (the studio's embedded sample)
 * quantized with XINT8, plain or with AdaRound at Quark's default 1000 iterations, calibrated and tuned on the
 * first text scenes of the calibration set (bench/cases/textScenes.ts), in one process as the CLI runs it
 * (onnxruntime-node runs the models and the optimizers' products). Reports wall and CPU seconds (the machine is
 * shared: CPU seconds are the steadier measure) and the held-out mean output cosine, judged by onnxruntime-node
 * on the written file over the held-out scenes (no image in common with the tuning ones).
 * Usage: finetuneCost.ts <plain|adaround> <images> <kept MiB, 0: every pass from the graph inputs> <early 0|1> [iterations, default 1000]
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions } from '../../src/core/quantize/config.ts';
import { quantizeWithRecovery } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { calibrateOnImages } from '../../src/cli/calibration/calibrateOnImages.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { createSession, nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { nodeGramProduct } from '../../src/cli/runtime/gramProduct.ts';
import { nodeDenseProduct } from '../../src/cli/runtime/denseProduct.ts';
import { TEXT_DETECTOR, writeTextScenes } from './textScenes.ts';
import { sampleCosine } from './heldOut.ts';

const [variant, imageArg, keptArg, earlyArg, iterationArg] = process.argv.slice(2);
const root = path.resolve(import.meta.dirname, '../..');
const calibDir = path.join(root, 'bench/tmp/text-scenes-calib');
const judgeDir = path.join(root, 'bench/tmp/text-scenes-judge');
if (!fs.existsSync(calibDir)) writeTextScenes('calib');
if (!fs.existsSync(judgeDir)) writeTextScenes('judge');
const original = decode(fs.readFileSync(TEXT_DETECTOR.model));
const files = listImageFiles(calibDir).files.slice(0, Number(imageArg));
const tuned = variant === 'adaround';
const config = withOptions(getPreset('XINT8'), {
  includeFastFt: tuned,
  ...(tuned
    ? {
        extraOptions: {
          FastFinetune: {
            EarlyStop: earlyArg === '1',
            ...(iterationArg ? { NumIterations: Number(iterationArg) } : {}),
          },
        },
      }
    : {}),
});

const t0 = performance.now();
const c0 = process.cpuUsage();
const feeds = tuned ? imageFeeds(original, { files }, TEXT_DETECTOR.preprocess).feeds : [];
const result = await quantizeWithRecovery(original, config, {
  configName: 'XINT8',
  runtime: tuned ? nodeRuntime(feeds) : undefined,
  gramProduct: nodeGramProduct,
  denseProduct: nodeDenseProduct,
  keptTensorBudgetBytes: Number(keptArg) * 2 ** 20,
  calibrate: async (m) => (await calibrateOnImages(m, files, { spec: TEXT_DETECTOR.preprocess, config })).ranges,
});
const out = path.join(root, 'bench/tmp', `ppocr-det.${variant}.${keptArg}.${earlyArg}.onnx`);
fs.writeFileSync(out, encode(result.model));
const cpu = process.cpuUsage(c0);
const wall = (performance.now() - t0) / 1000;

// The judge: onnxruntime-node on the written file, against the float model as loaded, on the held-out scenes.
const floatSession = await createSession(TEXT_DETECTOR.model);
const quantSession = await createSession(out);
const cosines: number[] = [];
for (const f of imageFeeds(original, { files: listImageFiles(judgeDir).files }, TEXT_DETECTOR.preprocess).feeds) {
  const { cosine } = sampleCosine(await floatSession.run(f), await quantSession.run(f));
  if (cosine !== null) cosines.push(cosine);
}
const ft = result.recovery.finetune;
console.log(
  JSON.stringify({
    model: 'ppocr-det',
    variant:
      variant === 'plain'
        ? 'XINT8'
        : `XINT8 + AdaRound${Number(keptArg) > 0 ? ', kept tensors' : ', passes from the inputs'}${earlyArg === '1' ? ', early stop' : ''}${iterationArg ? `, ${iterationArg} iterations` : ''}`,
    images: files.length,
    judged: cosines.length,
    wallSeconds: +wall.toFixed(1),
    cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(1),
    gatherSeconds: +result.recovery.seconds.gather.toFixed(1),
    optimizerSeconds: ft ? +ft.seconds.toFixed(1) : 0,
    passes: result.recovery.stages,
    nodeRuns: result.recovery.passes?.nodeRuns ?? null,
    keptMiB: result.recovery.passes ? +(result.recovery.passes.peakBytes / 2 ** 20).toFixed(1) : null,
    iterations: ft ? ft.layers.reduce((a, l) => a + l.iterations, 0) : 0,
    layers: ft?.layers.length ?? 0,
    cosineMean: +(cosines.reduce((x, y) => x + y, 0) / cosines.length).toFixed(5),
    cosineMin: +Math.min(...cosines).toFixed(5),
  }),
);
