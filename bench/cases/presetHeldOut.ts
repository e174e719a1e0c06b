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
 * even samples calibrate, odd ones judge at 'all'), then calibrates on all of them with the chosen method.
 *
 * Usage: presetHeldOut.ts <target> <preset> [perChannel] [method=<name>]   Prints one JSON line.
 */
import { encode } from '../../src/core/onnx/index.ts';
import { presetWithMethod } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod } from '../../src/core/quantize/config.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { calibrateOnFeeds } from '../../src/cli/calibration/calibrateOnImages.ts';
import { heldOutSplit } from './heldOutSplit.ts';
import { chooseCalibrationMethod, heldInSplit } from '../../src/core/evaluate/calibrationMethodChoice.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';

const [target, preset, ...rest] = process.argv.slice(2);
if (!target || !preset) throw new Error('usage: presetHeldOut.ts <target> <preset> [perChannel]');
const perChannel = rest.includes('perChannel');
const asked = rest.find((a) => a.startsWith('method='))?.slice('method='.length);
const start = performance.now();
const split = heldOutSplit(target);
const configWith = (m: CalibrationMethod | undefined) => withOptions(presetWithMethod(preset, m), { perChannel });
let method = asked as CalibrationMethod | undefined;
let choice = '';
if (asked === 'held-in') {
  const part = heldInSplit(split.calib.length);
  const chosen = await chooseCalibrationMethod(split.model, {
    config: configWith(undefined),
    withMethod: configWith,
    calibrate: async (c) =>
      (
        await calibrateOnFeeds(
          split.model,
          part.calibrate.map((i) => split.calib[i]),
          { config: c },
        )
      ).ranges,
    judge: nodeRuntime(
      part.judge.map((i) => split.calib[i]),
      'all',
    ),
    configName: preset,
  });
  method = chosen.chosen;
  choice = chosen.measured.map((m) => `${m.method} ${m.cosine.toFixed(5)}`).join(', ');
}
const config = configWith(method);
const { ranges } = await calibrateOnFeeds(split.model, split.calib, { config });
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
    method: asked === 'held-in' ? `held-in: ${config.calibrationMethod}` : config.calibrationMethod,
    ...(choice ? { choice } : {}),
    images: split.images,
    metric: all.cosine === undefined ? 'step top-1' : 'cosine',
    all: figure(all),
    basic: figure(basic),
    detail: [detail(all), detail(basic)].filter(Boolean).join(' / '),
    seconds: Math.round((performance.now() - start) / 1000),
  }),
);
