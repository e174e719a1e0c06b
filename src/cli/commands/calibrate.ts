/**
 * `qstudio calibrate <model.onnx> --calib <dir> --config <preset|config.json> [--preprocess …] -o ranges.json`:
 * activation ranges from a folder of images, with the calibration method the configuration names. With
 * `--shard i/n --stats <file>`, the statistics of share i of n of the images, for `qstudio merge`. A sequential
 * calibration shards in rounds (core SequentialRound): `--shard` alone runs round 1, the float pass; each later
 * round runs on every share with `--after <the merged statistics of the rounds before>`, and is merged onto them
 * (`qstudio merge … --after`), so that the shards compute exactly what one run over all the images computes.
 */
import fs from 'node:fs';
import { activationMethodName } from '../../core/calibrate/collectors/methodFromConfig.ts';
import {
  formatStatistics,
  isComplete,
  parseStatistics,
  rangesDigest,
  SequentialRoundsError,
  ConsumerSearchSplitError,
  consumerSearchSplitMessage,
  needsWholeRun,
  StatisticsFileError,
  statisticsKey,
  STATISTICS_FORMAT,
} from '../../core/calibrate/run/statisticsFile.ts';
import { rangesOf, type TensorStates } from '../../core/calibrate/run/statistics.ts';
import { ModelCalibrator, type SequentialRound } from '../../core/calibrate/run/runner.ts';
import { asFloat32 } from '../../core/halfFloat/float16.ts';
import { type QuantConfig } from '../../core/quantize/config.ts';
import { ortNodeRuntime } from '../runtime/ortNode.ts';
import { folderSampleCount } from '../data/dataFeeds.ts';
import { calibrateFolder, rangesToJSON, shardFiles, type Shard } from '../calibration/calibrateFolder.ts';
import { loadConfigArgument } from '../configArgument.ts';
import { readModelFile } from '../modelFile.ts';
import { parse, readInputFile, UsageError } from '../usage.ts';
import { dataFolderUsage } from '../data/dataFolder.ts';

const usage = `Usage: qstudio calibrate <model.onnx> --calib <dir> --config <preset|config.json> [--preprocess <preset|file.json>] -o <ranges.json>

Runs the float model over a folder of images (.jpg, .png) or tensors (.npy, .npz) and writes the calibrated range of every
tensor, with the calibration method of the configuration (MinMax, Percentile, Entropy, MinMSE, ...).

Options:
  --calib <dir>              folder of calibration samples: images
${dataFolderUsage()}
  --config <preset|file>     the configuration whose calibration method to use (default U8S8: MinMax)
  --calibration-method <m>   MinMax, Percentile, Entropy, MinMSE, LayerwisePercentile, ConsumerMSE or
                             Sequential instead of the config's (as "qstudio quantize --calibration-method" takes it)
  --enable-subgraph          also calibrate the tensors inside If/Loop/Scan bodies ("EnableSubgraph": true), for
                             "qstudio quantize --enable-subgraph"; without it only the main graph is read
  --preprocess <preset|file> auto (recognised from the model, printed), a preset (imagenet, unit, yolo,
                             ultralytics, ultraface, y-channel, bgr-255, paddleocr-det, paddleocr-rec), or the page's JSON
  -o, --output <file>        where to write the ranges JSON
  --shard <i/n>              calibrate only share i of n of the images (0 ≤ i < n, contiguous blocks in name
                             order), for a batch scheduler's array of jobs; use with --stats
  --stats <file>             also write the statistics (histograms, not only ranges) for \`qstudio merge\`
  --after <merged.json>      Sequential with --shard: run the next round after the merged statistics of the
                             rounds before (see below)

Sequential with --shard runs in rounds, because each round after the float pass quantizes the model with the
ranges of all the images so far (a shard's own ranges would give other statistics). With n shards and R rounds
(the command prints R; 5 on most models):
  round 1:      qstudio calibrate m.onnx --calib <dir> --calibration-method Sequential --shard i/n --stats r1-i.json
                qstudio merge r1-*.json --stats after-1.json
  round k ≥ 2:  qstudio calibrate m.onnx --calib <dir> --calibration-method Sequential --shard i/n --after after-<k-1>.json --stats rk-i.json
                qstudio merge rk-*.json --after after-<k-1>.json --stats after-k.json   (and -o ranges.json at k = R)
Every shard of every round must see its same images; the result equals one run over all of them.

ConsumerMSE does not shard (a named error): its search measures the candidates on the first images of the whole
run with every image's histogram in. Run it in one calibration, or shard MinMSE.`;

/**
 * The round a sharded sequential calibration runs: the float pass without `--after`; with it, the round after
 * the merged statistics `after` holds, on the model quantized with their ranges (their digest marks the file).
 */
function roundAfter(
  after: string | undefined,
  config: QuantConfig,
): (SequentialRound & { rounds?: number; basis?: string }) | undefined {
  if (!after) return { index: 0, ranges: null };
  const base = parseStatistics(new TextDecoder().decode(readInputFile(after)), `"${after}"`);
  if (base.method !== 'Sequential' || base.key !== statisticsKey(config)) {
    throw new StatisticsFileError(
      `"${after}" holds ${base.method} statistics ${base.key}; this round calibrates with Sequential ${statisticsKey(config)}. Give the merged statistics of the rounds before, made with the same configuration.`,
    );
  }
  const seq = base.sequential;
  if (!seq || seq.basis || base.shard) {
    throw new StatisticsFileError(
      `"${after}" is not the merged statistics of a sequential calibration's rounds: give the file qstudio merge --stats wrote for the round before`,
    );
  }
  if (isComplete(base))
    throw new SequentialRoundsError(
      `"${after}" already holds all ${seq.rounds} rounds: its ranges are final (qstudio merge "${after}" -o <ranges.json>)`,
    );
  const ranges = rangesOf(base.states);
  return { index: seq.round + 1, ranges, rounds: seq.rounds, basis: rangesDigest(ranges) };
}

function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!(count >= 1 && index >= 0 && index < count))
    throw new UsageError(`--shard takes i/n with 0 ≤ i < n (e.g. 0/4), got "${text}"`);
  return { index, count };
}

export const calibrateCommand = {
  summary: 'activation ranges from a folder of images',
  usage,
  async run(args: string[]): Promise<number> {
    const { values, positionals } = parse(args, {
      calib: { type: 'string' },
      config: { type: 'string', default: 'U8S8' },
      'calibration-method': { type: 'string' },
      'enable-subgraph': { type: 'boolean', default: false },
      preprocess: { type: 'string' },
      output: { type: 'string', short: 'o' },
      shard: { type: 'string' },
      stats: { type: 'string' },
      after: { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one model file');
    if (!values.calib) throw new UsageError('--calib <dir> is required');
    if (!values.output && !values.stats) throw new UsageError('-o <ranges.json> (or --stats <file>) is required');
    if (values.shard && !values.stats) throw new UsageError('--shard writes statistics: give --stats <file>');
    const shard = values.shard ? parseShard(values.shard) : undefined;
    const modelPath = positionals[0];
    const { model, fileName } = readModelFile(modelPath);
    const config = loadConfigArgument(values.config!, {
      calibrationMethod: values['calibration-method'],
      nodesToExclude: [],
      opTypesToExclude: [],
      subgraphsToExclude: [],
      enableSubgraph: values['enable-subgraph'],
    }).config;
    const method = activationMethodName(config);
    const sequential = config.calibrationMethod === 'Sequential';
    if (values.after && !sequential)
      throw new UsageError(
        '--after runs a later round of a sequential calibration: give --calibration-method Sequential',
      );
    if (values.after && !shard)
      throw new UsageError(
        '--after runs one round on one share: give --shard i/n (without shards, a plain run does every round)',
      );
    if (sequential && shard && values.output)
      throw new UsageError(
        "a sequential calibration's shard writes statistics only (--stats): the ranges come from qstudio merge after its last round",
      );
    if (shard && needsWholeRun(method))
      throw new ConsumerSearchSplitError(consumerSearchSplitMessage('--shard with ConsumerMSE'));
    const round = sequential && shard ? roundAfter(values.after, config) : undefined;
    const empty =
      shard !== undefined &&
      shardFiles(Array.from({ length: folderSampleCount(values.calib, model) }), shard).length === 0;
    // A shard whose share is empty (more shards than images) writes empty statistics: merging ignores it.
    const result = empty
      ? null
      : await calibrateFolder(model, values.calib, config, values.preprocess, { shard, round, fileName });
    // The rounds of a sequential calibration; a share with no images learns them from the previous round or the model.
    const rounds =
      round?.rounds ??
      result?.rounds ??
      (sequential ? new ModelCalibrator(asFloat32(model), ortNodeRuntime()).sequentialRounds() : undefined);
    if (values.stats) {
      const progress =
        round && rounds
          ? { round: round.index, rounds, ...(round.basis ? { basis: round.basis } : {}) }
          : sequential && rounds
            ? { round: rounds - 1, rounds }
            : undefined;
      const stats = {
        format: STATISTICS_FORMAT,
        version: 1 as const,
        method,
        key: statisticsKey(config),
        images: result?.images ?? 0,
        shards: 1,
        shard,
        ...(progress ? { sequential: progress } : {}),
        states: result?.states ?? (new Map() as TensorStates),
      };
      fs.writeFileSync(values.stats, formatStatistics(stats));
      process.stdout.write(`statistics: ${values.stats}\n`);
      if (round && rounds) {
        const next = round.index + 1;
        process.stdout.write(
          next < rounds
            ? `round ${next} of ${rounds} of a sequential calibration: merge every share's file of this round (qstudio merge <files>${round.index > 0 ? ` --after ${values.after}` : ''} --stats <merged.json>), then run round ${next + 1} on every share with --after <merged.json>\n`
            : `round ${next} of ${rounds}, the last: qstudio merge <this round's files> --after ${values.after} -o <ranges.json> gives the ranges\n`,
        );
      }
    }
    if (values.output && result) {
      const json = { method, images: result.images, skipped: result.skipped, ranges: rangesToJSON(result.ranges) };
      fs.writeFileSync(values.output, `${JSON.stringify(json, null, 1)}\n`);
      process.stdout.write(`ranges: ${values.output}\n`);
    }
    return 0;
  },
};
