/**
 * What `qstudio calibrate`, `qstudio quantize --calib` and `suggest` share: read a folder's samples (images, or
 * .npy/.npz tensors: data/dataFeeds.ts), calibrate the model on them with progress, and say what was skipped.
 */
import { buildGraphIndex, summarize, type ModelProto } from '../../core/onnx/index.ts';
import { assertCalibratable } from '../../core/calibrate/run/runner.ts';
import type { QuantConfig } from '../../core/quantize/config.ts';
import { listDataFolder } from '../data/dataFolder.ts';
import { folderKind, tensorFolderFeeds, type FolderFeeds } from '../data/dataFeeds.ts';
import { loadPreprocessArgument } from '../preprocessArgument.ts';
import { rateText, terminalProgress } from '../progressBar.ts';
import { calibrateOnFeeds, calibrateOnImages, type CalibrationResult } from './calibrateOnImages.ts';
import type { SequentialRound } from '../../core/calibrate/run/runner.ts';

/** Share `index` (0-based) of `count`: a contiguous block of the folder's images in name order. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** The images of one shard: block index of count, floor(i·N/n) to floor((i+1)·N/n). */
export function shardFiles<T>(files: readonly T[], shard: Shard | undefined): T[] {
  if (!shard) return files.slice();
  const n = files.length;
  return files.slice(Math.floor((shard.index * n) / shard.count), Math.floor(((shard.index + 1) * n) / shard.count));
}

export async function calibrateFolder(
  model: ModelProto,
  dir: string,
  config: QuantConfig,
  preprocess: string | undefined,
  options: {
    shard?: Shard;
    round?: SequentialRound;
    /** The model file's name: `--preprocess auto` recognises some families by it (ISNet, YOLOX, …). */
    fileName?: string;
    /** Node outputs not to observe (the core runner's `unobserved`): ranges the one plan using them never reads. */
    unobserved?: ReadonlySet<string>;
  } = {},
): Promise<CalibrationResult> {
  const { shard, round } = options;
  const listing = listDataFolder(dir);
  const tensors = folderKind(dir, listing) === 'tensors';
  const bar = terminalProgress('calibrating', tensors ? 'samples' : 'images');
  let result: CalibrationResult;
  if (tensors) {
    const data = tensorFolderFeeds(dir, listing, model);
    for (const s of data.skipped) process.stderr.write(`skipped ${s.file}: ${s.reason}\n`);
    result = await calibrateOnFeeds(model, shardFiles(data.feeds, shard), {
      config,
      onProgress: (p) => bar.update(p),
      round,
      unobserved: options.unobserved,
    });
  } else {
    // What no data can fix (custom-domain ops, an already quantized model) is said before how data would feed it.
    assertCalibratable(summarize(model, buildGraphIndex(model.graph!)), 'The model');
    const { spec, note } = loadPreprocessArgument(preprocess, model, options.fileName);
    if (note) process.stderr.write(`note: ${note}\n`);
    result = await calibrateOnImages(model, shardFiles(listing.images, shard), {
      spec,
      config,
      onProgress: (p) => bar.update(p),
      round,
      unobserved: options.unobserved,
    });
  }
  bar.done();
  return reported(result, tensors);
}

/**
 * Calibration on a folder already decoded (folderFeeds: `quantize --mixed-precision` judges on the same images), with
 * calibrateFolder's progress and summary, without decoding the folder again.
 */
export async function calibrateDecoded(
  model: ModelProto,
  data: FolderFeeds,
  config: QuantConfig,
): Promise<CalibrationResult> {
  const tensors = data.kind === 'tensors';
  const bar = terminalProgress('calibrating', tensors ? 'samples' : 'images');
  const result = await calibrateOnFeeds(model, data.feeds, { config, onProgress: (p) => bar.update(p) });
  bar.done();
  return reported({ ...result, skipped: [...data.skipped, ...result.skipped] }, tensors);
}

/** The calibration's skipped samples and its summary line on stderr. */
function reported(result: CalibrationResult, tensors: boolean): CalibrationResult {
  for (const s of result.skipped) process.stderr.write(`skipped ${s.file}: ${s.reason}\n`);
  const what = tensors ? 'tensor sample' : 'image';
  process.stderr.write(
    `calibrated on ${result.images} ${what}${result.images === 1 ? '' : 's'} in ${result.seconds.toFixed(1)} s ` +
      `(${rateText(result.images / result.seconds, tensors ? 'samples' : 'images')}), ${result.ranges.size} tensors\n`,
  );
  return result;
}

/** Ranges as the ranges file stores them: { tensor: [min, max] }. */
export function rangesToJSON(
  ranges: ReadonlyMap<string, { min: number; max: number }>,
): Record<string, [number, number]> {
  return Object.fromEntries([...ranges].map(([k, v]) => [k, [v.min, v.max]]));
}
