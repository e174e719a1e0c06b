/**
 * One preset's held-out figure on one model at both onnxruntime levels, for the regression guard (suite
 * preset-guard, `npm run bench -- compare`): calibrated and judged on heldOutSplit.ts's split, the written file run
 * by onnxruntime-node at 'all' (onnxruntime's default) and 'basic' (the model's own Q/DQ arithmetic). The figure is
 * the mean output cosine, or the recognizer's step top-1 (its lines and CER beside it).
 *
 * With `method=<name>` the preset is measured with that calibration method instead of its own (presetWithMethod:
 * the options that follow the method default for it), for suite preset-methods.
 *
 * Usage: presetHeldOut.ts <target> <preset> [perChannel] [method=<name>]   Prints one JSON line.
 */
import { encode } from '../../src/core/onnx/index.ts';
import { presetWithMethod } from '../../src/core/quantize/presets.ts';
import { configToJSON, validateConfig, type CalibrationMethod } from '../../src/core/quantize/config.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { calibrateOnFeeds } from '../../src/cli/calibration/calibrateOnImages.ts';
import { heldOutSplit } from './heldOutSplit.ts';

const [target, preset, ...rest] = process.argv.slice(2);
if (!target || !preset) throw new Error('usage: presetHeldOut.ts <target> <preset> [perChannel]');
const perChannel = rest.includes('perChannel');
const method = rest.find((a) => a.startsWith('method='))?.slice('method='.length) as CalibrationMethod | undefined;
const start = performance.now();
const split = heldOutSplit(target);
const config = validateConfig({ ...JSON.parse(configToJSON(presetWithMethod(preset, method))), perChannel });
const { ranges } = await calibrateOnFeeds(split.model, split.calib, { config });
const bytes = encode(quantizeModel(split.model, ranges, config, preset).model);
const [all, basic] = [await split.judge(bytes, 'all'), await split.judge(bytes, 'basic')];
const figure = (j: Record<string, number | string>) => Number(j.cosine ?? j.stepTop1);
const detail = (j: Record<string, number | string>) => (j.linesMatching === undefined ? '' : `${j.linesMatching} lines, CER ${j.cer} %`);
console.log(JSON.stringify({
  model: target, preset, variant: perChannel ? 'per channel' : 'per tensor', method: config.calibrationMethod, images: split.images,
  metric: all.cosine === undefined ? 'step top-1' : 'cosine',
  all: figure(all), basic: figure(basic), detail: [detail(all), detail(basic)].filter(Boolean).join(' / '),
  seconds: Math.round((performance.now() - start) / 1000),
}));
