/**
 * What `qstudio calibrate` and `qstudio quantize --calib` share: list a folder's images, calibrate the
 * model on them with a progress bar, and say what was skipped.
 */
import type { ModelProto } from '../../core/onnx/index.ts';
import type { QuantConfig } from '../../core/quantize/config.ts';
import { listImageFiles } from '../images/listImages.ts';
import { loadPreprocessArgument } from '../preprocessArgument.ts';
import { terminalProgress } from '../progressBar.ts';
import { calibrateOnImages, type CalibrationResult } from './calibrateOnImages.ts';
import type { SequentialRound } from '../../core/calibrate/runner.ts';

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
  shard?: Shard,
  round?: SequentialRound,
): Promise<CalibrationResult> {
  const { spec, note } = loadPreprocessArgument(preprocess, model);
  if (note) process.stderr.write(`note: ${note}\n`);
  const files = shardFiles(listImageFiles(dir).files, shard);
  const bar = terminalProgress('calibrating');
  const result = await calibrateOnImages(model, files, { spec, config, onProgress: (p) => bar.update(p), round });
  bar.done();
  for (const s of result.skipped) process.stderr.write(`skipped ${s.file}: ${s.reason}\n`);
  process.stderr.write(
    `calibrated on ${result.images} image${result.images === 1 ? '' : 's'} in ${result.seconds.toFixed(1)} s ` +
      `(${(result.images / result.seconds).toFixed(1)} images/s), ${result.ranges.size} tensors\n`,
  );
  return result;
}

/** Ranges as the ranges file stores them: { tensor: [min, max] }. */
export function rangesToJSON(ranges: ReadonlyMap<string, { min: number; max: number }>): Record<string, [number, number]> {
  return Object.fromEntries([...ranges].map(([k, v]) => [k, [v.min, v.max]]));
}
