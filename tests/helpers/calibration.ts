/**
 * Real calibration ranges for the fixture tests: each fixture with its own preprocessing, run on real
 * photos through the same Node calibration the command line uses. Cached per model and method.
 */
import path from 'node:path';
import { decode, type ModelProto } from '../../src/core/onnx/index.ts';
import { calibrateOnImages } from '../../src/cli/calibration/calibrateOnImages.ts';
import { activationMethodName } from '../../src/core/calibrate/collectors/methodFromConfig.ts';
import type { QuantConfig } from '../../src/core/quantize/config.ts';
import { validatePreprocess, type PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import { getPreprocessPreset } from '../../src/core/preprocess/presets.ts';
import { IMAGES, readModel } from './fixtures.ts';

/** The preprocessing each fixture expects (shared/fixtures/README.md). */
export const FIXTURE_PREPROCESS: Record<string, PreprocessSpec> = {
  'mnist.onnx': validatePreprocess({ colorSpace: 'gray', scale: 1 / 255, mean: [0], std: [1] }),
  'super-resolution-10.onnx': validatePreprocess({
    colorSpace: 'Y',
    scale: 1 / 255,
    mean: [0],
    std: [1],
    dims: { batch_size: 1 },
  }),
  'ultraface-rfb-320.onnx': getPreprocessPreset('ultraface'),
  'ultraface-rfb-320-nopost.onnx': getPreprocessPreset('ultraface'),
  'yolox-nano.onnx': getPreprocessPreset('yolo'),
  'yunet-n-dynamic.onnx': validatePreprocess({
    ...getPreprocessPreset('yolo'),
    resize: 'stretch',
    dims: { batch: 1, height: 320, width: 320 },
  }),
};

export const PHOTOS = ['astronaut.png', 'yolox_dog.jpg', 'grace_hopper.jpg', 'chelsea.png'].map((f) =>
  path.join(IMAGES, 'photos', f),
);

const cache = new Map<string, Map<string, { min: number; max: number }>>();

/** The model decoded, and ranges from the photos with the calibration method `config` implies. */
export async function fixtureRanges(
  name: string,
  config: QuantConfig,
): Promise<{ model: ModelProto; ranges: Map<string, { min: number; max: number }> }> {
  const model = decode(readModel(name));
  const key = `${name}|${activationMethodName(config)}`;
  let ranges = cache.get(key);
  if (!ranges) {
    ranges = (await calibrateOnImages(model, PHOTOS, { spec: FIXTURE_PREPROCESS[name], config })).ranges;
    cache.set(key, ranges);
  }
  return { model, ranges };
}
