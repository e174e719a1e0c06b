/**
 * The Conv → Mul/Add fold (prepare/foldConvAffine.ts) measured held out, on and off, at both judge levels: a
 * preset calibrated on one split and judged on the other (heldOutSplit.ts) by onnxruntime-node running the written
 * file at graph optimization 'all' and 'basic'. One calibration serves both rows. A model in which nothing folds
 * is reported as such (its two rows would be the same file).
 *
 * Usage: foldConvAffine.ts <ppocr-det|ppocr-det-photos|ppocr-rec|fixture.onnx> [preset=A8W8] [perChannel]
 * Prints one JSON line.
 */
import { encode } from '../../src/core/onnx/index.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type QuantConfig } from '../../src/core/quantize/config.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { prepare } from '../../src/core/prepare/prepare.ts';
import { calibrateOnFeeds } from '../../src/cli/calibration/calibrateOnImages.ts';
import type { GraphOptimization } from '../../src/core/runtime/graphOptimization.ts';
import { heldOutSplit } from './heldOutSplit.ts';

const [target = 'ppocr-det', ...rest] = process.argv.slice(2);
const presetName = rest.find((a) => !a.includes('=') && a !== 'perChannel') ?? 'A8W8';
const perChannel = rest.includes('perChannel');
const LEVELS: GraphOptimization[] = ['all', 'basic'];

const s = heldOutSplit(target);
const folded = prepare(s.model, {}).summary.actions.filter((a) => a.includes('Mul/Add'));
const config = (fold: boolean): QuantConfig => withOptions(getPreset(presetName), { perChannel, foldConvAffine: fold });
const start = performance.now();
const { ranges } = await calibrateOnFeeds(s.model, s.calib, { config: config(true) });
const rows: Record<string, unknown>[] = [];
for (const fold of folded.length > 0 ? [true, false] : [true]) {
  const { model } = quantizeModel(s.model, ranges, config(fold), presetName);
  const bytes = encode(model);
  for (const level of LEVELS) rows.push({ fold, level, ...(await s.judge(bytes, level)) });
}
console.log(
  JSON.stringify({
    model: target,
    preset: presetName,
    perChannel,
    images: s.images,
    folded: folded.join('; ') || 'nothing folds',
    rows,
    seconds: Math.round((performance.now() - start) / 1000),
  }),
);
