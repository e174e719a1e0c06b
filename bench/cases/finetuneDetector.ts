/**
 * What a fine-tuning rung costs on a detector, and what it scores held out, as the ladder runs it: XINT8 with AdaRound
 * (or AdaQuant) on the calibration images (one calibration and one float-row cache shared by every variant of the
 * run, as the command line's ladder shares them across rungs, room for 1 GiB of rows; `fresh` gives each variant its own
 * cache), judged by the mean output
 * cosine to the float model, onnxruntime-node on the written bytes at 'all' and 'basic'. Models: the PP-OCRv4 text
 * detector (textScenes' 16 calibration and 21 held-out scenes), UltraFace RFB-320 and YOLOX-nano (COCO images
 * 1–16 calibrate and tune, 17–24 judged). Variants as in finetuneRecognizer.ts: plain, full, early, min=<θ>.
 * Usage: finetuneDetector.ts <ppocr-det|ultraface|yolox> <adaround|adaquant> <iterations> [fresh] <variant> [<variant> …]
 */
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { quantizeWithRecovery } from '../../src/core/recovery/quantizeWithRecovery.ts';
import { FloatRowCache } from '../../src/core/recovery/floatRowCache.ts';
import { SensitivityCache } from '../../src/core/recovery/sensitiveLayers.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { calibrateOnFeeds } from '../../src/cli/calibration/calibrateOnImages.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { createSession, float32Tensor, nodeRuntime, type Feeds } from '../../src/cli/runtime/ortNode.ts';
import { nodeGramProduct } from '../../src/cli/runtime/gramProduct.ts';
import { nodeDenseProduct } from '../../src/cli/runtime/denseProduct.ts';
import type { Ranges } from '../../src/core/quantize/plan.ts';
import { TEXT_DETECTOR, textSceneFeeds } from './textScenes.ts';
import { DETECTORS } from './detectors.ts';
import { heldOutFolders, sampleCosine } from './heldOut.ts';
import { finetuneVariant, sensitiveFigures, stageSeconds } from './finetuneVariants.ts';
import { profiledVariant } from './variantProfile.ts';

const [modelArg, algorithmArg, iterationArg, ...rest] = process.argv.slice(2);
const algorithm = algorithmArg === 'adaquant' ? 'adaquant' : 'adaround';
const fresh = rest[0] === 'fresh';
const variants = fresh ? rest.slice(1) : rest;
const iterations = Number(iterationArg);
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures/models');

function setup(): { file: string; calib: Feeds[]; judge: Feeds[] } {
  if (modelArg === 'ppocr-det') {
    const input = decode(fs.readFileSync(TEXT_DETECTOR.model)).graph!.input[0].name!;
    const feeds = (set: 'calib' | 'judge'): Feeds[] =>
      textSceneFeeds(set).map((s) => ({ [input]: float32Tensor(s.data, s.dims) }));
    return { file: TEXT_DETECTOR.model, calib: feeds('calib'), judge: feeds('judge') };
  }
  const name = modelArg === 'ultraface' ? 'ultraface-rfb-320.onnx' : 'yolox-nano.onnx';
  const file = path.join(fixtures, name);
  const model = decode(fs.readFileSync(file));
  const { calib, judge } = heldOutFolders();
  const feeds = (dir: string) =>
    imageFeeds(model, { files: listImageFiles(dir).files }, DETECTORS[name].preprocess).feeds;
  return { file, calib: feeds(calib), judge: feeds(judge) };
}

const { file, calib, judge } = setup();
const model = decode(fs.readFileSync(file));
const runtime = nodeRuntime(calib);
const base = getPreset('XINT8');
const floatSessions = {
  all: await createSession(file, 0, 'all'),
  basic: await createSession(file, 0, 'basic'),
};
const floatOutputs = {
  all: [] as Awaited<ReturnType<typeof floatSessions.all.run>>[],
  basic: [] as Awaited<ReturnType<typeof floatSessions.basic.run>>[],
};
for (const f of judge) {
  floatOutputs.all.push(await floatSessions.all.run(f));
  floatOutputs.basic.push(await floatSessions.basic.run(f));
}
/** Mean and min over the held-out samples of the mean output cosine, the written bytes at `level`. */
async function judgeAt(bytes: Uint8Array, level: 'all' | 'basic') {
  const session = await createSession(bytes, 0, level);
  const cosines: number[] = [];
  for (let i = 0; i < judge.length; i++) {
    const { cosine } = sampleCosine(floatOutputs[level][i], await session.run(judge[i]));
    if (cosine !== null) cosines.push(cosine);
  }
  await session.release();
  return {
    mean: +(cosines.reduce((a, b) => a + b, 0) / cosines.length).toFixed(5),
    min: +Math.min(...cosines).toFixed(5),
  };
}

let ranges: Promise<Ranges> | undefined;
// As the command line's ladder keeps them: room for every layer's float inputs.
const shared = new FloatRowCache(2 ** 30);
// The layers' added noise kept across variants by plain configuration, as the ladder keeps it (not with `fresh`).
const sharedNoise = fresh ? undefined : new SensitivityCache();
for (const variant of variants) {
  const { tune, config, recoveryOptions } = finetuneVariant(base, variant, algorithm, iterations);
  global.gc?.();
  const load = os.loadavg()[0];
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const result = await profiledVariant(variant, () =>
    quantizeWithRecovery(model, config, {
      calibrate: (m) => (ranges ??= calibrateOnFeeds(m, calib, { config: base }).then((r) => r.ranges)),
      runtime,
      gramProduct: nodeGramProduct,
      denseProduct: nodeDenseProduct,
      floatRowCache: fresh ? new FloatRowCache(2 ** 30) : shared,
      sensitivityCache: sharedNoise,
      configName: variant,
      ...recoveryOptions,
    }),
  );
  const bytes = encode(result.model);
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const all = await judgeAt(bytes, 'all');
  const basic = await judgeAt(bytes, 'basic');
  const ft = result.recovery.finetune;
  console.log(
    JSON.stringify({
      model: path.basename(file),
      algorithm: ft?.algorithm ?? null,
      sensitive: sensitiveFigures(result),
      variant,
      iterations: tune ? iterations : 0,
      floatRows: fresh ? 'fresh' : 'shared',
      floatRowMiB: +(shared.size / 2 ** 20).toFixed(0),
      floatRowsRefused: shared.refused,
      samples: calib.length,
      judged: judge.length,
      ...stageSeconds(result, wall, cpu),
      writtenSha256: createHash('sha256').update(bytes).digest('hex').slice(0, 16),
      layers: ft ? ft.layers.length + (ft.untuned?.length ?? 0) + (ft.unselected?.length ?? 0) : 0,
      tunedLayers: ft?.layers.length ?? 0,
      steps: ft ? ft.layers.reduce((a, l) => a + l.iterations, 0) : 0,
      cosineAll: all.mean,
      minCosineAll: all.min,
      cosineBasic: basic.mean,
      minCosineBasic: basic.min,
      loadAverage: +load.toFixed(1),
    }),
  );
}
