/**
 * Evaluation time per image in onnxruntime-node, the command line's runtime: a fixture detector
 * calibrated on COCO images 1–8 with XINT8 and quantized, then compared with its float model by the
 * core's compareModels on COCO images 17–24, outputs only or layer by layer (every intermediate
 * tensor exposed and compared). Usage: evaluationNode.ts <model> <outputs|layers>
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode } from '../../src/core/onnx/index.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { calibrateOnImages } from '../../src/cli/calibration/calibrateOnImages.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { imageFeeds } from '../../src/cli/images/imageFeed.ts';
import { compareModels } from '../../src/core/evaluate/compareModels.ts';
import { meanOutputCosine } from '../../src/core/evaluate/outputMetrics.ts';
import { nodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { DETECTORS } from './detectors.ts';

const [name, mode] = process.argv.slice(2);
const detector = DETECTORS[name];
const model = decode(fs.readFileSync(path.join(import.meta.dirname, '../../../shared/fixtures/models', name)));
const coco = listImageFiles(path.join(import.meta.dirname, '../../../shared/fixtures/images/coco')).files;
const config = getPreset('XINT8');

const { ranges } = await calibrateOnImages(model, coco.slice(0, 8), { spec: detector.preprocess, config });
const { model: quantized } = quantizeModel(model, ranges, config, 'XINT8');
const { feeds } = imageFeeds(model, { files: coco.slice(16, 24) }, detector.preprocess);
const comparison = await compareModels(model, quantized, nodeRuntime(feeds), { layers: mode === 'layers' });
const n = comparison.samples;
console.log(
  JSON.stringify({
    model: name,
    compare: mode === 'layers' ? `layer-wise (${comparison.layerwise!.rows.length} tensors)` : 'outputs only',
    runtime: 'onnxruntime-node',
    images: n,
    msPerImage: +(((comparison.seconds.float + comparison.seconds.quantized) / n) * 1000).toFixed(0),
    totalSeconds: +comparison.seconds.total.toFixed(2),
    chunks: comparison.layerwise?.chunks ?? 1,
    meanCosine: +meanOutputCosine(comparison.outputs).cosine.toFixed(5),
  }),
);
