/**
 * One calibration method on one fixture, judged on held-out images: calibrate with the command line's
 * runner (onnxruntime-node) on the calibration set, quantize at A8W8 per tensor and per channel, and judge
 * each written model against the float model with onnxruntime-node on images never calibrated on (mean
 * output cosine, Quark's definition, averaged over images and outputs; all-zero outputs are counted apart,
 * and each output's cosine is kept for the suite to compare methods on the same outputs).
 *
 * Sets: the PP-OCRv4 text detector ('ppocr-det') calibrates on the text scenes' calibration set (lines
 * 00–15 on COCO 1–16) and is judged on their held-out set (lines 16–31 on COCO 17–24 and the photos); the
 * fixture detectors calibrate on COCO 1–16 and are judged on COCO 17–24 (docs/NOTES.md's held-out protocol).
 * Sequential calibrates once per weight granularity (its statistics come from the quantized model).
 * With a third argument 'functions', every quantization (Sequential's passes included) uses the function rules
 * (enableNpuTransformer, the CLI's --attention: functions written out as several nodes get Q/DQ at their input and
 * output only).
 * Usage: calibrationHeldOut.ts <ppocr-det | fixture model> <method> [functions]
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { presetDefinition } from '../../src/core/quantize/presets.ts';
import { validateConfig } from '../../src/core/quantize/config.ts';
import { calibrateOnImages } from '../../src/cli/calibration/calibrateOnImages.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { createSession, float32Tensor, type Feeds } from '../../src/cli/runtime/ortNode.ts';
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import { DETECTORS } from './detectors.ts';
import { outputCosines, sampleCosine } from './heldOut.ts';
import { TEXT_DETECTOR, textSceneFeeds, writeTextScenes } from './textScenes.ts';

const [name, method, rules] = process.argv.slice(2);
const functionRules = rules === 'functions';
const fixtures = path.join(import.meta.dirname, '../../../shared/fixtures');

let modelFile: string;
let spec: PreprocessSpec;
let calibration: string[];
let judge: () => Feeds[];
if (name === 'ppocr-det') {
  modelFile = TEXT_DETECTOR.model;
  spec = TEXT_DETECTOR.preprocess;
  calibration = listImageFiles(
    writeTextScenes(
      'calib',
      path.join(import.meta.dirname, '../tmp', `text-scenes-calib-${method}${functionRules ? '-functions' : ''}`),
    ),
  ).files;
  judge = () => textSceneFeeds('judge').map((f) => ({ x: float32Tensor(f.data, f.dims) }));
} else {
  modelFile = path.join(fixtures, 'models', name);
  spec = DETECTORS[name].preprocess;
  const coco = listImageFiles(path.join(fixtures, 'images/coco')).files;
  calibration = coco.slice(0, 16);
  judge = () => imageFeeds(decode(fs.readFileSync(modelFile)), { files: coco.slice(16, 24) }, spec).feeds;
}
const model = decode(fs.readFileSync(modelFile));
// The preset as its reference states it, with the method swapped in; everything else defaults for that method
// (Percentile's symmetric histogram, Entropy's bins), as a config naming the method gets.
const configFor = (perChannel: boolean) =>
  validateConfig({
    ...presetDefinition('A8W8').input,
    calibrationMethod: method,
    perChannel,
    enableNpuTransformer: functionRules,
  });
const config = configFor(false);

// Wall time, and the CPU time of every thread of this process (onnxruntime's included): on a shared machine
// the wall time follows the load, the CPU time follows the work.
const t0 = performance.now();
const c0 = process.cpuUsage();
const { ranges, images } = await calibrateOnImages(model, calibration, { spec, config });
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(c0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
// Sequential calibration gathers statistics on the quantized model, whose weights per channel or per tensor
// differ: it calibrates again for per-channel weights (the time reported is the per-tensor calibration's).
const perChannelRanges =
  method === 'Sequential'
    ? (await calibrateOnImages(model, calibration, { spec, config: configFor(true) })).ranges
    : ranges;

const feeds = judge();
const floatSession = await createSession(encode(model));
const floatOutputs = [];
for (const f of feeds) floatOutputs.push(await floatSession.run(f));
await floatSession.release();

const row: Record<string, number | string | (number | null)[][]> = {
  model: name,
  method,
  functionRules: functionRules ? 'on' : 'off',
  images,
  judged: feeds.length,
  seconds: +seconds.toFixed(2),
  cpuSeconds: +cpuSeconds.toFixed(2),
};
for (const perChannel of [false, true]) {
  const quantized = quantizeModel(model, perChannel ? perChannelRanges : ranges, configFor(perChannel), 'A8W8').model;
  const session = await createSession(encode(quantized));
  const cosines: number[] = [];
  const perOutput: (number | null)[][] = [];
  let undefinedOutputs = 0;
  for (let i = 0; i < feeds.length; i++) {
    const b = await session.run(feeds[i]);
    const judged = sampleCosine(floatOutputs[i], b);
    undefinedOutputs += judged.undefinedOutputs;
    if (judged.cosine !== null) cosines.push(judged.cosine);
    perOutput.push(outputCosines(floatOutputs[i], b).map((c) => (Number.isFinite(c) ? c : null)));
  }
  await session.release();
  const key = perChannel ? 'perChannel' : 'perTensor';
  row[key] = +(cosines.reduce((x, y) => x + y, 0) / cosines.length).toFixed(5);
  if (undefinedOutputs) row[`${key}ZeroOutputs`] = undefinedOutputs;
  // Per sample and output, for the suite's comparison on the outputs both this method and MinMax define.
  row[`${key}Outputs`] = perOutput;
}
console.log(JSON.stringify(row));
