/**
 * Image files as a model's input tensors, for everything in Node that runs a model on photos: the
 * commands (calibrate, quantize --calib, evaluate, suggest, ladder), the tests and the benchmarks.
 * Each file is decoded (images/decode.ts) and preprocessed (core/preprocess) into one feed for the
 * model's single input. An unreadable image is a skip with its reason, never an abort: the caller
 * lists it and goes on.
 */
import path from 'node:path';
import { StudioError } from '../../core/onnx/errors.ts';
import { buildGraphIndex, tensorSummary, type ModelProto } from '../../core/onnx/index.ts';
import type { TensorSummary } from '../../core/onnx/modelSummary.ts';
import type { PreprocessSpec } from '../../core/preprocess/spec.ts';
import { imageToInputTensor } from '../../core/preprocess/toTensor.ts';
import { ortTensor, type Feeds, type OrtTensor } from '../runtime/ortNode.ts';
import { decodeImageFile } from './decode.ts';
import { EvaluationDataError } from './errors.ts';
import { TENSOR_CONVENTION } from '../data/dataFolder.ts';
import { listImageFiles } from './listImages.ts';

export type ImageFeed =
  { tensor: OrtTensor; width: number; height: number } | { skipped: { file: string; reason: string } };

/** One image file as the input tensor `input` takes; a file that does not decode is a skip with its reason. */
export function readImageFeed(file: string, input: TensorSummary, spec: PreprocessSpec): ImageFeed {
  try {
    const image = decodeImageFile(file);
    return {
      tensor: ortTensor(imageToInputTensor(image, input.shape ?? [], spec, input.name)),
      width: image.width,
      height: image.height,
    };
  } catch (e) {
    if (e instanceof StudioError && e.name === 'ImageDecodeError')
      return { skipped: { file: path.basename(file), reason: e.message } };
    throw e;
  }
}

export interface ImageFeeds {
  readonly feeds: Feeds[];
  readonly files: string[];
  /** Each used image's size in pixels (as decoded), in the order of `files`: where the model input's boxes map back to. */
  readonly sizes: { width: number; height: number }[];
  readonly skipped: { file: string; reason: string }[];
}

/**
 * The model's input tensors for each image of the folder `dir` (sorted by name) or of the `files` given, at most
 * `limit`, decoded up front; unreadable images are skipped and named.
 */
export function imageFeeds(
  model: ModelProto,
  source: { readonly dir: string } | { readonly files: readonly string[] },
  spec: PreprocessSpec,
  limit = Infinity,
): ImageFeeds {
  const index = buildGraphIndex(model.graph!);
  if (index.inputs.length !== 1)
    throw new EvaluationDataError(
      `the model has ${index.inputs.length} inputs; images feed exactly one: give a folder of .npy/.npz tensors (${TENSOR_CONVENTION})`,
    );
  const input = tensorSummary(index.inputs[0]);
  const files = 'dir' in source ? listImageFiles(source.dir).files : source.files;
  const feeds: Feeds[] = [];
  const used: string[] = [];
  const sizes: { width: number; height: number }[] = [];
  const skipped: ImageFeeds['skipped'] = [];
  for (const file of files) {
    if (feeds.length >= limit) break;
    const read = readImageFeed(file, input, spec);
    if ('skipped' in read) {
      skipped.push(read.skipped);
      continue;
    }
    feeds.push({ [input.name]: read.tensor });
    used.push(file);
    sizes.push({ width: read.width, height: read.height });
  }
  if (feeds.length === 0)
    throw new EvaluationDataError(
      `no readable images in ${'dir' in source ? source.dir : 'the files given'}${skipped[0] ? ` (${skipped[0].reason})` : ''}`,
    );
  return { feeds, files: used, sizes, skipped };
}
