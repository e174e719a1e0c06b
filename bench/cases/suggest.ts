/**
 * Where YOLOX-nano's XINT8 error comes from, and what the measured exclusion search makes of it: calibrate on
 * COCO 1–16, judge on COCO 17–24, compare layer by layer, then run suggest-exclusions (20 measured steps,
 * target 0.99). Prints one JSON line: the steps, each with the layer it tried and whether that layer lies in
 * the post-processing tail the reference advises keeping float. Usage: suggest.ts <model> <preset> <steps>.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildGraphIndex, decode } from '../../src/core/onnx/index.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { calibrateOnImages } from '../../src/cli/calibration/calibrateOnImages.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { compareModels, meanOutputCosine } from '../../src/core/evaluate/index.ts';
import { rankLayers, suggestExclusions, tailSubgraph } from '../../src/core/search/index.ts';
import { resolveSubgraph } from '../../src/core/exclude/index.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { DETECTORS } from './detectors.ts';

const [name, preset, stepsText] = process.argv.slice(2);
const detector = DETECTORS[name];
const model = decode(fs.readFileSync(path.join(import.meta.dirname, '../../../shared/fixtures/models', name)));
const cocoDir = path.join(import.meta.dirname, '../../../shared/fixtures/images/coco');
const coco = listImageFiles(cocoDir).files;
const config = getPreset(preset);
const index = buildGraphIndex(model.graph!);
const tail = new Set(resolveSubgraph(index, detector.tail).map((i) => index.ids[i]));

const { ranges } = await calibrateOnImages(model, coco.slice(0, 16), { spec: detector.preprocess, config });
const judge = imageFeeds(model, { dir: cocoDir }, detector.preprocess, 24);
const runtime = nodeRuntime(judge.feeds.slice(16, 24));
const result = await suggestExclusions({
  config,
  target: 0.99,
  maxSteps: Number(stepsText),
  tailOf: (id) => tailSubgraph(index, id),
  evaluate: async (c) => {
    const { model: q, report } = quantizeModel(model, ranges, c, preset);
    const comparison = await compareModels(model, q, runtime, { layers: true, floatIndex: index });
    const quantized = new Set<string>(report.quantized.map((x) => x.id));
    return {
      cosine: meanOutputCosine(comparison.outputs).cosine,
      layers: rankLayers(comparison.layerwise!.rows, index, quantized),
    };
  },
});
console.log(
  JSON.stringify({
    model: name,
    preset,
    reached: result.reached,
    start: result.steps[0].cosine,
    best: result.cosine,
    steps: result.steps.map((s) => ({
      step: s.step,
      change: !s.candidate
        ? `${preset}, nothing excluded`
        : s.candidate.kind === 'node'
          ? `node ${s.candidate.node}`
          : `tail from ${s.candidate.node} (${s.candidate.nodes} nodes)`,
      layer: s.candidate
        ? `${s.candidate.layer.opType}, ${s.candidate.layer.sqnr.toFixed(2)} dB (drop ${s.candidate.layer.drop.toFixed(2)})`
        : '',
      inTail: s.candidate ? tail.has(s.candidate.node) : null,
      cosine: +s.cosine.toFixed(5),
      kept: s.kept,
      bestCosine: +s.bestCosine.toFixed(5),
      seconds: +s.seconds.toFixed(1),
    })),
  }),
);
