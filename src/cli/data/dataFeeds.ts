/**
 * A --calib or --data folder as the model's feeds, whatever it holds: tensors (.npy, .npz; dataFolder.ts) or
 * images (decoded and preprocessed with --preprocess, images/imageFeed.ts). Every command that runs a model on a
 * folder (calibrate, quantize, evaluate, suggest, ladder, the shards) comes through here, so each takes both, and
 * each names what it ignored in a mixed folder and says what an empty one holds.
 */
import { buildGraphIndex, tensorSummary, type ModelProto } from '../../core/onnx/index.ts';
import { npyTarget } from '../../core/preprocess/npySamples.ts';
import type { Feeds } from '../runtime/ortNode.ts';
import { imageFeeds, type ImageFeeds } from '../images/imageFeed.ts';
import type { PreprocessSpec } from '../../core/preprocess/spec.ts';
import { loadPreprocessArgument } from '../preprocessArgument.ts';
import {
  listDataFolder,
  NoDataError,
  readTensorSamples,
  someNames,
  TENSOR_CONVENTION,
  type FolderListing,
} from './dataFolder.ts';

/** A folder's tensor samples. */
export interface TensorFolderFeeds {
  kind: 'tensors';
  feeds: Feeds[];
  /** Each sample's name (its file, or its key with several inputs). */
  files: string[];
  skipped: { file: string; reason: string }[];
}

/** A folder's images as feeds, with the preprocessing that made them (task metrics map outputs back onto the photos). */
export type ImageFolderFeeds = ImageFeeds & { kind: 'images'; spec: PreprocessSpec };

export type FolderFeeds = TensorFolderFeeds | ImageFolderFeeds;

/** What a folder of this listing will be read as; writes a note naming what is ignored. Throws NoDataError when it holds nothing usable. */
export function folderKind(
  dir: string,
  listing: FolderListing,
  say: (line: string) => void = (l) => process.stderr.write(l),
): 'images' | 'tensors' {
  const { images, tensors, other } = listing;
  if (tensors.length > 0) {
    const ignored = [
      ...(images.length
        ? [`${images.length} image(s) (${someNames(images.map((f) => f.slice(dir.length + 1)))})`]
        : []),
      ...(other.length ? [`${other.length} other file(s) (${someNames(other)})`] : []),
    ];
    if (ignored.length)
      say(`note: ${dir} holds .npy/.npz tensors, which are used; ignored: ${ignored.join(' and ')}\n`);
    return 'tensors';
  }
  if (images.length > 0) {
    if (other.length)
      say(
        `note: ${dir}: ignored ${other.length} file(s) that are neither images (.jpg, .png) nor tensors (.npy, .npz): ${someNames(other)}\n`,
      );
    return 'images';
  }
  throw new NoDataError(
    `${dir} holds no images (.jpg, .png) and no tensors (.npy, .npz)${other.length ? `; it has ${someNames(other)}` : ': it is empty'}. ` +
      `Tensors: ${TENSOR_CONVENTION}.`,
  );
}

/** The model's real inputs, as the tensor reader checks them. */
function modelInputs(model: ModelProto) {
  return buildGraphIndex(model.graph!).inputs.map((v) => tensorSummary(v));
}

/** How many samples the folder holds (tensor samples by the naming convention, or images), without reading them. */
export function folderSampleCount(dir: string, model: ModelProto): number {
  const listing = listDataFolder(dir);
  if (listing.tensors.length === 0) return listing.images.length;
  const names = modelInputs(model).map((i) => i.name);
  return new Set(listing.tensors.map((f) => (/\.npz$/i.test(f) ? f : (npyTarget(f, names)?.sample ?? f)))).size;
}

/** The tensor samples of a tensor folder; NoDataError when none is usable, with the first reasons. */
export function tensorFolderFeeds(
  dir: string,
  listing: FolderListing,
  model: ModelProto,
  limit = Infinity,
): TensorFolderFeeds {
  const read = readTensorSamples(dir, listing.tensors, modelInputs(model), limit);
  if (read.feeds.length === 0) {
    const why = read.skipped
      .slice(0, 3)
      .map((s) => `${s.file}: ${s.reason}`)
      .join('; ');
    throw new NoDataError(`no usable tensor samples in ${dir} (${why}). Tensors: ${TENSOR_CONVENTION}.`);
  }
  return { kind: 'tensors', feeds: read.feeds, files: read.names, skipped: read.skipped };
}

/**
 * The feeds of a folder: its tensor samples, or its images preprocessed by `preprocess` (the --preprocess
 * argument; its note is written to stderr). At most `limit` samples.
 */
export function folderFeeds(
  model: ModelProto,
  dir: string,
  preprocess: string | undefined,
  options: { limit?: number; fileName?: string } = {},
): FolderFeeds {
  const listing = listDataFolder(dir);
  if (folderKind(dir, listing) === 'tensors') return tensorFolderFeeds(dir, listing, model, options.limit);
  const { spec, note } = loadPreprocessArgument(preprocess, model, options.fileName);
  if (note) process.stderr.write(`note: ${note}\n`);
  return { kind: 'images', spec, ...imageFeeds(model, { files: listing.images }, spec, options.limit) };
}
