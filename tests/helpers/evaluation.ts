/**
 * Inputs for the evaluation tests: fixture photos turned into one model's feeds with that model's
 * preprocessing, and the held-out COCO photos the fidelity protocol judges on (NOTES.md: calibrate
 * on the first 16, judge on the last 8).
 */
import path from 'node:path';
import { buildGraphIndex, tensorSummary, type ModelProto } from '../../src/core/onnx/index.ts';
import { imageToTensor } from '../../src/core/preprocess/toTensor.ts';
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import { decodeImageFile } from '../../src/cli/images/decode.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { float32Tensor, type Feeds } from '../../src/cli/runtime/ortNode.ts';
import { IMAGES } from './fixtures.ts';

/** The 24 COCO photos, sorted by name as the command line lists them. */
export const COCO = listImageFiles(path.join(IMAGES, 'coco')).files;
/** COCO 17–24: the held-out half of the fidelity protocol. */
export const COCO_EVAL = COCO.slice(16, 24);

/** One feed set per image file, for the model's single input. */
export function imageFeeds(model: ModelProto, files: readonly string[], spec: PreprocessSpec): Feeds[] {
  const input = tensorSummary(buildGraphIndex(model.graph!).inputs[0]);
  return files.map((file) => {
    const t = imageToTensor(decodeImageFile(file), input.shape ?? [], spec, { inputName: input.name });
    return { [input.name]: float32Tensor(t.data, t.dims) };
  });
}
