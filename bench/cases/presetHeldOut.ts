/**
 * One preset's held-out figure on one model at both onnxruntime levels, for the regression guard (suite
 * preset-guard, `npm run bench -- compare`): calibrated and judged on heldOutSplit.ts's split, the written file run
 * by onnxruntime-node at 'all' (onnxruntime's default) and 'basic' (the model's own Q/DQ arithmetic). The figure is
 * the mean output cosine, or the recognizer's step top-1 (its lines and CER beside it).
 *
 * With `method=<name>` the preset is measured with that calibration method instead of its own (presetWithMethod:
 * the options that follow the method default for it), for suite preset-methods.
 *
 * `method=held-in` chooses the method per model on the calibration samples alone (core/evaluate/calibrationMethodChoice.ts:
 * even samples calibrate, odd ones judge at 'all'; the chosen method's ranges over all of them), as `qstudio quantize`
 * does; without `method=`, so does a preset whose default it is (A8W8: presets.ts HELD_IN_DEFAULT), as the guard
 * measures the product's defaults.
 *
 * Usage: presetHeldOut.ts <target> <preset> [perChannel] [method=<name>]   Prints one JSON line.
 */
import { encode } from '../../src/core/onnx/index.ts';
import { choosesMethodByDefault, presetWithMethod } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod } from '../../src/core/quantize/config.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { calibrateOnFeeds } from '../../src/cli/calibration/calibrateOnImages.ts';
import { heldOutSplit } from './heldOutSplit.ts';
import { HELD_IN_METHOD, heldInSummary } from '../../src/core/evaluate/calibrationMethodChoice.ts';
import { heldInCalibration } from '../../src/cli/calibration/heldInMethod.ts';
import type { Ranges } from '../../src/core/quantize/plan.ts';

const [target, preset, ...rest] = process.argv.slice(2);
if (!target || !preset) throw new Error('usage: presetHeldOut.ts <target> <preset> [perChannel]');
const perChannel = rest.includes('perChannel');
const asked = rest.find((a) => a.startsWith('method='))?.slice('method='.length);
const start = performance.now();
const split = heldOutSplit(target);
const configWith = (m: CalibrationMethod | undefined) => withOptions(presetWithMethod(preset, m), { perChannel });
// No method named: what the product does by default (the held-in choice where the preset makes it, presets.ts HELD_IN_DEFAULT).
const choosing = asked === HELD_IN_METHOD || (asked === undefined && choosesMethodByDefault(preset));
let config = configWith(choosing ? undefined : (asked as CalibrationMethod | undefined));
let choice = '';
let ranges: Ranges;
if (choosing) {
  const held = await heldInCalibration(split.model, split.calib, config, preset, configWith);
  ({ config, ranges } = held);
  choice = heldInSummary(held.choice);
} else ranges = (await calibrateOnFeeds(split.model, split.calib, { config })).ranges;
const bytes = encode(quantizeModel(split.model, ranges, config, preset).model);
const [all, basic] = [await split.judge(bytes, 'all'), await split.judge(bytes, 'basic')];
const figure = (j: Record<string, number | string>) => Number(j.cosine ?? j.stepTop1);
const detail = (j: Record<string, number | string>) =>
  j.linesMatching === undefined ? '' : `${j.linesMatching} lines, CER ${j.cer} %`;
console.log(
  JSON.stringify({
    model: target,
    preset,
    variant: perChannel ? 'per channel' : 'per tensor',
    method: choosing ? `${HELD_IN_METHOD}: ${config.calibrationMethod}` : config.calibrationMethod,
    ...(choice ? { choice } : {}),
    images: split.images,
    metric: all.cosine === undefined ? 'step top-1' : 'cosine',
    all: figure(all),
    basic: figure(basic),
    detail: [detail(all), detail(basic)].filter(Boolean).join(' / '),
    seconds: Math.round((performance.now() - start) / 1000),
  }),
);
