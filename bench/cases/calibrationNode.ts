/**
 * Calibration throughput in onnxruntime-node: a detector over COCO images 1–8 with one calibration
 * method, session creation and image decoding included (as a user of `qstudio calibrate` waits).
 * Usage: calibrationNode.ts <model> <method: MinMax|Percentile|Entropy|PowerOfTwoMinMSE>
 */
import fs from 'node:fs';
import path from 'node:path';
import { decode } from '../../src/core/onnx/index.ts';
import { calibrateOnImages } from '../../src/cli/calibration/calibrateOnImages.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { withOptions, type QuantConfig } from '../../src/core/quantize/config.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { DETECTORS } from './detectors.ts';

const [name, method] = process.argv.slice(2);
const presetOf: Record<string, () => QuantConfig> = {
  MinMax: () => getPreset('U8S8'),
  Percentile: () => getPreset('U8S8_AAWS'),
  Entropy: () => withOptions(getPreset('U8S8'), { calibrationMethod: 'Entropy' }),
  PowerOfTwoMinMSE: () => getPreset('XINT8'),
};
const config = presetOf[method]();
const model = decode(fs.readFileSync(path.join(import.meta.dirname, '../../../shared/fixtures/models', name)));
const images = listImageFiles(path.join(import.meta.dirname, '../../../shared/fixtures/images/coco')).files.slice(0, 8);
const start = performance.now();
const result = await calibrateOnImages(model, images, { spec: DETECTORS[name].preprocess, config });
const seconds = (performance.now() - start) / 1000;
console.log(
  JSON.stringify({
    model: name,
    method,
    runtime: 'onnxruntime-node',
    images: result.images,
    seconds: +seconds.toFixed(2),
    imagesPerSecond: +(result.images / seconds).toFixed(2),
  }),
);
