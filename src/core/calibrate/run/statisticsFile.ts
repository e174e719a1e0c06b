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
 *
 * Sequential calibration merges round by round (runner.ts SequentialRound): a round after the float pass
 * quantizes the model with the ranges of every shard's merged statistics so far, so its shards must all start
 * from the same merged file. A file says which round it holds (`sequential`); the shards of round g ≥ 1 name the
 * ranges they started from by a digest (`basis`) and merge only onto the file those ranges came from
 * (`mergeRound`). Ranges come only from a file that holds every round.
 */
import { StudioError } from '../../onnx/errors.ts';
import type { QuantConfig } from '../../quantize/config.ts';
import { activationMethodName, activationState } from '../collectors/methodFromConfig.ts';
import type { TensorStates } from './statistics.ts';
import { afterRound, mergeTensorStates, rangesOf } from './statistics.ts';
import type { TensorRange } from '../../quantize/plan.ts';

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
  /** Sequential calibration only: the rounds done (see the module note). */
  readonly sequential?: SequentialProgress;
  readonly states: TensorStates;
}

/**
 * Where a sequential calibration's statistics stand. Without `basis`: every tensor's statistics after rounds 0 to
 * `round` (what round `round` + 1 starts from). With `basis`: round `round` ≥ 1 alone, on one share, gathered on
 * the model quantized with the ranges whose digest (rangesDigest) is `basis`; it merges onto that file only.
 */
export interface SequentialProgress {
  readonly round: number;
  readonly rounds: number;
  readonly basis?: string;
}

/** Statistics that cannot give ranges or merge yet: a sequential calibration with rounds still to run. */
export class SequentialRoundsError extends StudioError {
  override readonly name = 'SequentialRoundsError';
}

/**
 * ConsumerMSE statistics split over shards: its search (consumerSearch.ts) measures each candidate range on the
 * first SEARCH_SAMPLES images of the whole run, from the histograms of every image, so one share's search is not
 * the whole run's and merged shares have only MinMSE's ranges to give. Refused by name instead of answered wrongly.
 */
export class ConsumerSearchSplitError extends StudioError {
  override readonly name = 'ConsumerSearchSplitError';
}

/**
 * Whether statistics by `method` (activationMethodName) give their ranges only when one run gathers them all
 * (ConsumerMSE's search, see ConsumerSearchSplitError): such a calibration is neither sharded nor split over workers.
 */
export function needsWholeRun(method: string): boolean {
  return method === 'ConsumerMSE';
}

/** The message of a ConsumerSearchSplitError: why, and what to run instead. */
export function consumerSearchSplitMessage(what: string): string {
  return `${what}: ConsumerMSE chooses each range by measuring its consumers' error on the first images of the whole run, after every image's histogram is in, so its shards cannot be merged into the ranges one run gives. Calibrate ConsumerMSE in one run (qstudio calibrate without --shard), or shard with MinMSE, whose shards merge exactly.`;
}

/** A ConsumerSearchSplitError for ConsumerMSE statistics of a share, or of shares merged (see ConsumerSearchSplitError). */
function assertWholeConsumerSearch(file: StatisticsFile, where: string): void {
  if (needsWholeRun(file.method) && (file.shard || file.shards > 1)) {
    throw new ConsumerSearchSplitError(
      consumerSearchSplitMessage(
        `${where} holds ConsumerMSE statistics of ${file.shard ? `share ${file.shard.index}/${file.shard.count}` : `${file.shards} shards`}`,
      ),
    );
  }
}

/** A digest of ranges (tensor names and exact values, in name order): which ranges a sequential round started from. */
export function rangesDigest(ranges: ReadonlyMap<string, { readonly min: number; readonly max: number }>): string {
  const text = JSON.stringify(
    [...ranges].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([t, r]) => [t, r.min, r.max]),
  );
  // Two independent 32-bit FNV-1a hashes (different offsets) make a 64-bit digest: a guard against mixing rounds, not a secret.
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x01000193 + 2) >>> 0;
  }
  return h1.toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0');
}

/** Whether the file's statistics give ranges: any method's, or a sequential calibration's after its last round. */
export function isComplete(file: Pick<StatisticsFile, 'sequential'>): boolean {
  return !file.sequential || (!file.sequential.basis && file.sequential.round === file.sequential.rounds - 1);
}

/** The ranges of a file's statistics; a SequentialRoundsError when rounds remain to be run. */
export function rangesOfFile(file: StatisticsFile, where: string): Map<string, TensorRange> {
  assertWholeConsumerSearch(file, where);
  const seq = file.sequential;
  if (seq && !isComplete(file)) {
    const next = seq.basis ? seq.round : seq.round + 1;
    throw new SequentialRoundsError(
      seq.basis
        ? `${where} holds round ${seq.round + 1} of ${seq.rounds} of a sequential calibration on one share: merge every share's file of that round onto the statistics it started from (qstudio merge <round files> --after <merged statistics> --stats <merged.json>).`
        : `${where} holds rounds 1 to ${seq.round + 1} of the ${seq.rounds} of a sequential calibration: its ranges would still be the float ones downstream. Run round ${next + 1} on every share (qstudio calibrate … --shard i/n --after ${where} --stats <file>), merge with --after, and so on to round ${seq.rounds}.`,
    );
  }
  return rangesOf(file.states);
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
    throw new StatisticsFileError(
      `${where} is not a calibration statistics file (written by qstudio calibrate --shard)`,
    );
  }
  return json as unknown as StatisticsFile;
}

/** One file holding the statistics of all the given files (shards of one calibration); refuses a mix. */
export function mergeStatisticsFiles(files: readonly { file: StatisticsFile; where: string }[]): StatisticsFile {
  if (files.length === 0) throw new StatisticsFileError('no statistics files to merge');
  const first = files[0];
  if (needsWholeRun(first.file.method) && files.length > 1)
    throw new ConsumerSearchSplitError(
      consumerSearchSplitMessage(`${first.where} and ${files.length - 1} more hold ConsumerMSE statistics`),
    );
  for (const { file, where } of files) assertWholeConsumerSearch(file, where);
  // The rounds as a shard with images counted them (an empty shard could not measure how the passes chunk).
  const seq = (files.find((f) => f.file.images > 0) ?? first).file.sequential;
  if (seq?.basis) {
    throw new SequentialRoundsError(
      `${first.where} holds round ${seq.round + 1} of a sequential calibration on one share: merge it with --after <the merged statistics its round started from>.`,
    );
  }
  if (seq && seq.round > 0 && files.length > 1) {
    throw new SequentialRoundsError(
      `${first.where} holds a sequential calibration after its round 1: its later rounds quantized the model with its own images' ranges, so it cannot merge with others exactly. Shard a sequential calibration in rounds (qstudio calibrate --help).`,
    );
  }
  for (const { file, where } of files) {
    if (file.sequential?.round !== seq?.round || file.sequential?.basis !== undefined) {
      throw new StatisticsFileError(
        `${where} and ${first.where} hold different rounds of a calibration: merge the files of one round (for a later round of a sequential calibration: --after <merged statistics>)`,
      );
    }
  }
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
  return {
    format: STATISTICS_FORMAT,
    version: 1,
    method: first.file.method,
    key: first.file.key,
    images,
    shards,
    ...(seq ? { sequential: seq } : {}),
    states,
  };
}

/**
 * The statistics after a round of a sequential calibration: `base` (every tensor after the rounds before) with
 * the merged states of the round's shards in place of theirs. The shards must be round `base.round + 1`, started
 * from `base`'s ranges, and together cover shares 0 to n − 1 of one n once each: a SequentialRoundsError or a
 * StatisticsFileError names what does not fit.
 */
export function mergeRound(
  base: { file: StatisticsFile; where: string },
  shards: readonly { file: StatisticsFile; where: string }[],
): StatisticsFile {
  const seq = base.file.sequential;
  if (!seq || seq.basis) {
    throw new StatisticsFileError(
      `${base.where} is not the merged statistics of a sequential calibration's rounds (qstudio calibrate --calibration-method Sequential --shard i/n, then qstudio merge)`,
    );
  }
  if (isComplete(base.file))
    throw new SequentialRoundsError(
      `${base.where} already holds all ${seq.rounds} rounds: its ranges are final (qstudio merge ${base.where} -o <ranges.json>)`,
    );
  if (shards.length === 0)
    throw new StatisticsFileError(`no files of round ${seq.round + 2} to merge onto ${base.where}`);
  const basis = rangesDigest(rangesOf(base.file.states));
  const count = shards[0].file.shard?.count;
  const seen = new Set<number>();
  let states: TensorStates = new Map();
  for (const { file, where } of shards) {
    if (file.method !== base.file.method || file.key !== base.file.key) {
      throw new StatisticsFileError(
        `${where} was calibrated with ${file.method} ${file.key}, ${base.where} with ${base.file.method} ${base.file.key}: shards must share one configuration`,
      );
    }
    const s = file.sequential;
    if (!s?.basis || s.round !== seq.round + 1) {
      throw new SequentialRoundsError(
        `${where} is not round ${seq.round + 2} of ${seq.rounds} run after ${base.where} (qstudio calibrate … --shard i/n --after ${base.where})`,
      );
    }
    if (s.basis !== basis)
      throw new SequentialRoundsError(
        `${where} started from other ranges than those of ${base.where}: run its round again with --after ${base.where}`,
      );
    if (!file.shard || file.shard.count !== count || seen.has(file.shard.index)) {
      throw new StatisticsFileError(
        `${where} is not one more share of ${count ?? '?'}: give one file per share i/n of the round, each once`,
      );
    }
    seen.add(file.shard.index);
    states = mergeTensorStates(states, file.states);
  }
  if (seen.size !== count) {
    const missing = Array.from({ length: count! }, (_, i) => i).filter((i) => !seen.has(i));
    throw new StatisticsFileError(
      `round ${seq.round + 2} lacks share${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')}: every image must take part in every round`,
    );
  }
  return {
    ...base.file,
    shard: undefined,
    sequential: { round: seq.round + 1, rounds: seq.rounds },
    states: afterRound(base.file.states, states),
  };
}

/** What statistics depend on besides the method: the collector's options under `config`. */
export function statisticsKey(config: QuantConfig): string {
  return JSON.stringify((activationState(config) as { options?: unknown }).options ?? {});
}

/**
 * The ranges of a (merged) statistics file for a configuration, as if calibration had run under it; a
 * StatisticsFileError when the file was calibrated with another method or other collector options.
 */
export function rangesForConfig(
  file: StatisticsFile,
  config: QuantConfig,
  where: string,
): Map<string, { min: number; max: number }> {
  const method = activationMethodName(config);
  if (file.method !== method || file.key !== statisticsKey(config)) {
    throw new StatisticsFileError(
      `${where} holds ${file.method} statistics ${file.key}; the current settings calibrate with ${method} ${statisticsKey(config)}. Calibrate the shards with the same configuration.`,
    );
  }
  return rangesOfFile(file, where);
}
