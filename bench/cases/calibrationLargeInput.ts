/**
 * One timed run for suite "calibration-large-input" (issue 33.5): the PP-OCRv4 text detector at 1024 × 1024 on the
 * first three COCO photos, in a fresh process, one of:
 *   float      the three photos through the plain float model (one session, as calibration makes one): the floor;
 *   in-graph   MinMax calibration with the statistics computed inside the model (run/reduceInGraph.ts, the default);
 *   exposed    MinMax calibration with every tensor exposed as an output and folded in JavaScript (the path before);
 *   Percentile, Entropy, MinMSE   the histogram methods' calibration (every tensor exposed but those whose states are
 *              derived from others', run/derivedStates.ts; histograms in JavaScript).
 * Wall and process CPU seconds from before the session to the ranges (image decoding included in all three), and the
 * 1-minute load average before and after. The calibration modes write their ranges and states to `<ranges.json>` so the
 * suite can compare them; in-graph also says how many tensors the model reduces, how many a run derives from others'
 * extremes (run/derivedExtremes.ts) and how many are Constant nodes' outputs. onnxruntime-node, 'basic' (the
 * calibration sessions' level).
 * Usage: calibrationLargeInput.ts <float | in-graph | exposed | Percentile | Entropy | MinMSE> [ranges.json]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decode } from '../../src/core/onnx/index.ts';
import { summarize, buildGraphIndex, sessionModel } from '../../src/core/onnx/index.ts';
import { ModelCalibrator } from '../../src/core/calibrate/run/runner.ts';
import { rangesOf } from '../../src/core/calibrate/run/statistics.ts';
import { observableTensors } from '../../src/core/calibrate/run/expose.ts';
import { reduceInGraph } from '../../src/core/calibrate/run/reduceInGraph.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions } from '../../src/core/quantize/config.ts';
import { getPreprocessPreset } from '../../src/core/preprocess/presets.ts';
import { validatePreprocess } from '../../src/core/preprocess/spec.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { ortNodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { imageFileSource, nodeOutputBudget } from '../../src/cli/calibration/calibrateOnImages.ts';
import { TEXT_DETECTOR } from './textScenes.ts';

export const LARGE_INPUT_SIZE = 1024;
export const LARGE_INPUT_IMAGES = 3;

const [mode, rangesFile] = process.argv.slice(2);
export const HISTOGRAM_MODES = ['Percentile', 'Entropy', 'MinMSE'] as const;
const histogram = (HISTOGRAM_MODES as readonly string[]).includes(mode);
if (!['float', 'in-graph', 'exposed'].includes(mode) && !histogram) throw new Error(`unknown mode ${mode}`);
const fixtures = path.join(import.meta.dirname, '../../../shared/fixtures');
const images = listImageFiles(path.join(fixtures, 'images/coco')).files.slice(0, LARGE_INPUT_IMAGES);
const model = decode(fs.readFileSync(TEXT_DETECTOR.model));
const summary = summarize(model, buildGraphIndex(model.graph!));
const spec = validatePreprocess({
  ...getPreprocessPreset('paddleocr-det'),
  resize: 'stretch',
  dims: {
    'p2o.DynamicDimension.0': 1,
    'p2o.DynamicDimension.1': LARGE_INPUT_SIZE,
    'p2o.DynamicDimension.2': LARGE_INPUT_SIZE,
  },
});
const source = () => imageFileSource(images, summary.inputs, spec);

const loadBefore = os.loadavg()[0];
const t0 = performance.now();
const c0 = process.cpuUsage();
let tensors = 0;
let outputMB = 0;
let split: Record<string, number> = {};
const runtime = ortNodeRuntime();
if (mode === 'float') {
  const { runner } = await runtime.createSession(sessionModel(model), 'float', { runs: images.length });
  const s = source();
  for (let i = 0; i < s.count; i++) {
    const made = await s.produce(i);
    if ('feeds' in made) await runner.run(made.feeds);
  }
  await runner.release();
} else {
  const calibrator = new ModelCalibrator(model, runtime, nodeOutputBudget(), {
    statisticsInGraph: mode === 'in-graph',
  });
  const outcome = await calibrator.calibrate(
    source(),
    // MinMax named: A8W8's method is otherwise chosen per model by the command line (calibrationMethodChoice.ts).
    withOptions(getPreset('A8W8'), { calibrationMethod: histogram ? (mode as 'Entropy') : 'MinMax' }),
    () => false,
    () => undefined,
  );
  await calibrator.release();
  const ranges = rangesOf(outcome.states);
  tensors = ranges.size;
  outputMB = +(outcome.runOutputBytes / 1e6).toFixed(3);
  if (rangesFile) {
    const states = JSON.stringify(Object.fromEntries(outcome.states), (_, v) =>
      typeof v === 'bigint' ? String(v) : v,
    );
    fs.writeFileSync(rangesFile, `{"ranges":${JSON.stringify(Object.fromEntries(ranges))},"states":${states}}`);
  }
  if (mode === 'in-graph') {
    const inputs = new Set(model.graph!.input.map((v) => v.name));
    const plan = reduceInGraph(
      model,
      observableTensors(model).filter((t) => !inputs.has(t)),
    );
    split = {
      reduced: plan.tensors.length,
      derived: plan.derived.size,
      constants: plan.constants.size,
      sums: plan.checks.checked.length,
    };
  }
}
const cpu = process.cpuUsage(c0);
console.log(
  JSON.stringify({
    mode,
    images: images.length,
    size: LARGE_INPUT_SIZE,
    tensors,
    outputMB,
    ...split,
    seconds: +((performance.now() - t0) / 1000).toFixed(2),
    cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(2),
    loadBefore: +loadBefore.toFixed(2),
    loadAfter: +os.loadavg()[0].toFixed(2),
  }),
);
