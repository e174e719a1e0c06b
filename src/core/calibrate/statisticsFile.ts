/**
 * Calibration statistics as a file, so that calibration can run past one machine: each shard of the images
 * writes the collector states of its share (histograms, not only ranges), and any number of them merge into
 * the statistics, and so the ranges, that one run over all the images gives (collector merges are exact and
 * order-free, types.ts). Any batch scheduler can run the shards; `qstudio merge` combines them.
 *
 * The states are plain data (numbers, typed arrays, bigints, nested options); JSON carries them with three
 * tags: `{"$f64": [length, index, value, …]}` for a Float64Array (sparse: histograms are mostly empty),
 * `{"$big": "…"}` for a bigint, `{"$num": "Infinity" | "-Infinity" | "NaN"}` for what JSON has no number for.
 * A file also says what made it (method, the options that change statistics), so that statistics of different
 * configurations are refused instead of mixed. Pure: no file system here.
 */
import { StudioError } from '../onnx/errors.ts';
import type { QuantConfig } from '../quantize/config.ts';
import { activationMethodName, activationState } from './methodFromConfig.ts';
import type { TensorStates } from './statistics.ts';
import { mergeTensorStates, rangesOf } from './statistics.ts';

/** A statistics file that cannot be read or merged with the others. */
export class StatisticsFileError extends StudioError {
  override readonly name = 'StatisticsFileError';
}

export const STATISTICS_FORMAT = 'qstudio-calibration-statistics' as const;

export interface StatisticsFile {
  readonly format: typeof STATISTICS_FORMAT;
  readonly version: 1;
  /** The activation collector method (MinMax, Percentile, …). */
  readonly method: string;
  /** What the statistics depend on besides the method (collector options); files must agree on it to merge. */
  readonly key: string;
  /** Images folded in, and the shards merged (1 for one run). */
  readonly images: number;
  readonly shards: number;
  /** Which share of the images, for a shard's own file: 0-based index and count; absent for a merged file. */
  readonly shard?: { readonly index: number; readonly count: number };
  readonly states: TensorStates;
}

function encodeValue(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return { $big: value.toString() };
  if (typeof value === 'number' && !Number.isFinite(value)) return { $num: String(value) };
  if (value instanceof Float64Array) {
    const out: number[] = [value.length];
    for (let i = 0; i < value.length; i++) if (value[i] !== 0) out.push(i, value[i]);
    return { $f64: out };
  }
  if (value instanceof Map) return { $map: [...value] };
  return value;
}

function decodeValue(_key: string, value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const v = value as Record<string, unknown>;
  if (typeof v.$big === 'string') return BigInt(v.$big);
  if (typeof v.$num === 'string') return Number(v.$num);
  if (Array.isArray(v.$f64)) {
    const [length, ...pairs] = v.$f64 as number[];
    const out = new Float64Array(length);
    for (let i = 0; i < pairs.length; i += 2) out[pairs[i]] = pairs[i + 1];
    return out;
  }
  if (Array.isArray(v.$map)) return new Map(v.$map as [string, unknown][]);
  return value;
}

/** The file's text (JSON.stringify hands every value, typed arrays and non-finite numbers included, to the tagger). */
export function formatStatistics(file: StatisticsFile): string {
  return `${JSON.stringify(file, encodeValue)}\n`;
}

/** A statistics file from its text; `where` names it in errors. */
export function parseStatistics(text: string, where: string): StatisticsFile {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text, decodeValue) as Record<string, unknown>;
  } catch (e) {
    throw new StatisticsFileError(`${where} is not JSON: ${(e as Error).message}`);
  }
  if (!json || json.format !== STATISTICS_FORMAT || json.version !== 1 || !(json.states instanceof Map)) {
    throw new StatisticsFileError(`${where} is not a calibration statistics file (written by qstudio calibrate --shard)`);
  }
  return json as unknown as StatisticsFile;
}

/** One file holding the statistics of all the given files (shards of one calibration); refuses a mix. */
export function mergeStatisticsFiles(files: readonly { file: StatisticsFile; where: string }[]): StatisticsFile {
  if (files.length === 0) throw new StatisticsFileError('no statistics files to merge');
  const first = files[0];
  let states: TensorStates = new Map();
  let images = 0;
  let shards = 0;
  for (const { file, where } of files) {
    if (file.method !== first.file.method || file.key !== first.file.key) {
      throw new StatisticsFileError(
        `${where} was calibrated with ${file.method} ${file.key}, ${first.where} with ${first.file.method} ${first.file.key}: shards must share one configuration`,
      );
    }
    states = mergeTensorStates(states, file.states);
    images += file.images;
    shards += file.shards;
  }
  return { format: STATISTICS_FORMAT, version: 1, method: first.file.method, key: first.file.key, images, shards, states };
}

/** What statistics depend on besides the method: the collector's options under `config`. */
export function statisticsKey(config: QuantConfig): string {
  return JSON.stringify((activationState(config) as { options?: unknown }).options ?? {});
}

/**
 * The ranges of a (merged) statistics file for a configuration, as if calibration had run under it; a
 * StatisticsFileError when the file was calibrated with another method or other collector options.
 */
export function rangesForConfig(file: StatisticsFile, config: QuantConfig, where: string): Map<string, { min: number; max: number }> {
  const method = activationMethodName(config);
  if (file.method !== method || file.key !== statisticsKey(config)) {
    throw new StatisticsFileError(
      `${where} holds ${file.method} statistics ${file.key}; the current settings calibrate with ${method} ${statisticsKey(config)}. Calibrate the shards with the same configuration.`,
    );
  }
  return rangesOf(file.states);
}
