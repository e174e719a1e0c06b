/**
 * How close a quantized detector stays to its float model on real photos, docs/NOTES.md's held-out protocol: calibrate on
 * the first 16 COCO images, judge on the last 8 by the output cosine similarity (Quark's definition),
 * averaged over images and outputs. Usage: fidelity.ts <model> <preset> <variant> where variant is
 * 'plain', 'tail' (post-processing tail excluded), 'perChannel' or 'perChannel+tail'.
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions } from '../../src/core/quantize/config.ts';
import { calibrateOnImages } from '../../src/cli/calibration/calibrateOnImages.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { createSession } from '../../src/cli/runtime/ortNode.ts';
import { DETECTORS } from './detectors.ts';
import { heldOutFiles, sampleCosine } from './heldOut.ts';

const [name, preset, variant] = process.argv.slice(2);
const detector = DETECTORS[name];
const model = decode(fs.readFileSync(path.join(import.meta.dirname, '../../../shared/fixtures/models', name)));
const { calibration, evaluation } = heldOutFiles();

const config = withOptions(getPreset(preset), {
  ...(variant.includes('perChannel') ? { perChannel: true } : {}),
  ...(variant.includes('tail') ? { subgraphsToExclude: [detector.tail] } : {}),
});

const t0 = performance.now();
const { ranges } = await calibrateOnImages(model, calibration, { spec: detector.preprocess, config });
const t1 = performance.now();
const { model: quantized, report } = quantizeModel(model, ranges, config, preset);
const floatSession = await createSession(encode(model));
const quantSession = await createSession(encode(quantized));
const cosines: number[] = [];
let undefinedOutputs = 0;
for (const feeds of imageFeeds(model, { files: evaluation }, detector.preprocess).feeds) {
  const a = await floatSession.run(feeds);
  const b = await quantSession.run(feeds);
  const judged = sampleCosine(a, b);
  undefinedOutputs += judged.undefinedOutputs;
  if (judged.cosine !== null) cosines.push(judged.cosine);
}
console.log(
  JSON.stringify({
    model: name,
    preset,
    variant,
    cosineMean: +(cosines.reduce((x, y) => x + y, 0) / cosines.length).toFixed(5),
    cosineMin: +Math.min(...cosines).toFixed(5),
    undefinedOutputs,
    floatNodes: report.counts.float,
    calibrationSeconds: +((t1 - t0) / 1000).toFixed(1),
    opset: `${report.opset.before}→${report.opset.after}`,
  }),
);
