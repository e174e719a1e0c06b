/**
 * One image file as a model's input tensor, for the commands that run models on a folder of images
 * (calibrate, quantize --calib, evaluate). An unreadable image is a skip with its reason, never an
 * abort: the caller lists it and goes on.
 */
import path from 'node:path';
import { StudioError } from '../core/onnx/errors.ts';
import type { TensorSummary } from '../core/onnx/summary.ts';
import type { PreprocessSpec } from '../core/preprocess/spec.ts';
import { imageToTensor } from '../core/preprocess/toTensor.ts';
import { decodeImageFile } from './images/decode.ts';
import { float32Tensor, type OrtTensor } from './runtime/ortNode.ts';

export type ImageFeed = { tensor: OrtTensor } | { skipped: { file: string; reason: string } };

export function readImageFeed(file: string, input: TensorSummary, spec: PreprocessSpec): ImageFeed {
  try {
    const t = imageToTensor(decodeImageFile(file), input.shape ?? [], spec, { inputName: input.name });
    return { tensor: float32Tensor(t.data, t.dims) };
  } catch (e) {
    if (e instanceof StudioError && e.name === 'ImageDecodeError') return { skipped: { file: path.basename(file), reason: e.message } };
    throw e;
  }
}
