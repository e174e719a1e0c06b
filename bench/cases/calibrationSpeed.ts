/**
 * One timed calibration for suite "calibration-speed": a fixture calibrated with one method by the command line's
 * runner (onnxruntime-node, the core runner the page's workers use too), in a fresh process, as `qstudio calibrate`
 * runs it: model decode excluded, session creation, image decoding, model runs, folding and the ranges included.
 *
 * It reports the wall time and the CPU time of the whole process over the call (all threads, onnxruntime's
 * included: on a shared machine the wall time follows the load, the CPU time the work), the CPU time of computing
 * the ranges from the finished statistics once more (the per-tensor threshold searches alone: Entropy's KL search,
 * Percentile's quantile, MinMSE's sweep), and the machine's 1-minute load average before and after.
 *
 * Sets (as suite calibration-methods): the COCO fixtures and MNIST calibrate on COCO images 1–16 (MNIST reads them
 * in gray at 28 × 28: a timing case, not an accuracy one), the PP-OCRv4 text detector ('ppocr-det') on the first
 * `scenes` text scenes of its calibration set (default 4). A8W8 per tensor with the method swapped in.
 * Usage: calibrationSpeed.ts <ppocr-det | fixture model> <method> [scenes]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode } from '../../src/core/onnx/index.ts';
import { presetDefinition } from '../../src/core/quantize/presets.ts';
import { validateConfig } from '../../src/core/quantize/config.ts';
import { rangesOf } from '../../src/core/calibrate/run/statistics.ts';
import { validatePreprocess, type PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import { calibrateOnImages } from '../../src/cli/calibration/calibrateOnImages.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { DETECTORS } from './detectors.ts';
import { TEXT_DETECTOR, writeTextScenes } from './textScenes.ts';

const [name, method, scenesArg] = process.argv.slice(2);
const fixtures = path.join(import.meta.dirname, '../../../shared/fixtures');
const coco = () => listImageFiles(path.join(fixtures, 'images/coco')).files.slice(0, 16);

let modelFile: string;
let spec: PreprocessSpec;
let images: string[];
if (name === 'ppocr-det') {
  modelFile = TEXT_DETECTOR.model;
  spec = TEXT_DETECTOR.preprocess;
  // One folder per method, so that cases run side by side never read a scene another is writing.
  const dir = writeTextScenes('calib', path.join(import.meta.dirname, '../tmp', `text-scenes-speed-${method}`));
  images = listImageFiles(dir).files.slice(0, Number(scenesArg ?? 4));
} else if (name === 'mnist.onnx') {
  modelFile = path.join(fixtures, 'models', name);
  spec = validatePreprocess({ colorSpace: 'gray', scale: 1 / 255, mean: [0], std: [1] });
  images = coco();
} else {
  modelFile = path.join(fixtures, 'models', name);
  spec = DETECTORS[name].preprocess;
  images = coco();
}
const model = decode(fs.readFileSync(modelFile));
const config = validateConfig({ ...presetDefinition('A8W8').input, calibrationMethod: method, perChannel: false });

const loadBefore = os.loadavg()[0];
const t0 = performance.now();
const c0 = process.cpuUsage();
const result = await calibrateOnImages(model, images, { spec, config });
const cpu = process.cpuUsage(c0);
const seconds = (performance.now() - t0) / 1000;
const loadAfter = os.loadavg()[0];
// The ranges once more from the same statistics: what the threshold searches cost (deterministic, so the same work
// the call above did at its end).
const f0 = process.cpuUsage();
rangesOf(result.states);
const f = process.cpuUsage(f0);

console.log(
  JSON.stringify({
    model: name,
    method,
    images: result.images,
    tensors: result.ranges.size,
    seconds: +seconds.toFixed(3),
    cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(3),
    rangesCpuSeconds: +((f.user + f.system) / 1e6).toFixed(3),
    loadBefore: +loadBefore.toFixed(2),
    loadAfter: +loadAfter.toFixed(2),
  }),
);
