/**
 * `qstudio calibrate <model.onnx> --calib <dir> --config <preset|config.json> [--preprocess …] -o ranges.json`:
 * activation ranges from a folder of images, with the calibration method the configuration names. With
 * `--shard i/n --stats <file>`, the statistics of share i of n of the images, for `qstudio merge`.
 */
import fs from 'node:fs';
import { activationMethodName } from '../../core/calibrate/methodFromConfig.ts';
import { formatStatistics, statisticsKey, STATISTICS_FORMAT } from '../../core/calibrate/statisticsFile.ts';
import type { TensorStates } from '../../core/calibrate/statistics.ts';
import { listImageFiles } from '../images/listImages.ts';
import { calibrateFolder, rangesToJSON, shardFiles, type Shard } from '../calibration/calibrateFolder.ts';
import { loadConfigArgument } from '../configArgument.ts';
import { readModelFile } from '../modelFile.ts';
import { parse, UsageError } from '../usage.ts';

const usage = `Usage: qstudio calibrate <model.onnx> --calib <dir> --config <preset|config.json> [--preprocess <preset|file.json>] -o <ranges.json>

Runs the float model over the images of a folder (.jpg, .png) and writes the calibrated range of every
tensor, with the calibration method of the configuration (MinMax, Percentile, Entropy, MinMSE, ...).

Options:
  --calib <dir>              folder of calibration images
  --config <preset|file>     the configuration whose calibration method to use (default U8S8: MinMax)
  --calibration-method <m>   MinMax, Percentile, Entropy, MinMSE, LayerwisePercentile, ConsumerMSE or
                             Sequential instead of the config's (as "qstudio quantize --calibration-method" takes it)
  --preprocess <preset|file> auto (recognised from the model, printed), a preset (imagenet, unit, yolo,
                             ultralytics, ultraface, y-channel, bgr-255, paddleocr-det, paddleocr-rec), or the page's JSON
  -o, --output <file>        where to write the ranges JSON
  --shard <i/n>              calibrate only share i of n of the images (0 ≤ i < n, contiguous blocks in name
                             order), for a batch scheduler's array of jobs; use with --stats
  --stats <file>             also write the statistics (histograms, not only ranges) for \`qstudio merge\``;

function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!(count >= 1 && index >= 0 && index < count)) throw new UsageError(`--shard takes i/n with 0 ≤ i < n (e.g. 0/4), got "${text}"`);
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
      preprocess: { type: 'string' },
      output: { type: 'string', short: 'o' },
      shard: { type: 'string' },
      stats: { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one model file');
    if (!values.calib) throw new UsageError('--calib <dir> is required');
    if (!values.output && !values.stats) throw new UsageError('-o <ranges.json> (or --stats <file>) is required');
    if (values.shard && !values.stats) throw new UsageError('--shard writes statistics: give --stats <file>');
    const shard = values.shard ? parseShard(values.shard) : undefined;
    const modelPath = positionals[0];
    const { model } = readModelFile(modelPath);
    const { config } = loadConfigArgument(values.config!, { calibrationMethod: values['calibration-method'], nodesToExclude: [], opTypesToExclude: [], subgraphsToExclude: [] });
    const method = activationMethodName(config);
    const empty = shard !== undefined && shardFiles(listImageFiles(values.calib).files, shard).length === 0;
    // A shard whose share is empty (more shards than images) writes empty statistics: merging ignores it.
    const result = empty ? null : await calibrateFolder(model, values.calib, config, values.preprocess, shard);
    if (values.stats) {
      const stats = { format: STATISTICS_FORMAT, version: 1 as const, method, key: statisticsKey(config), images: result?.images ?? 0, shards: 1, shard, states: result?.states ?? (new Map() as TensorStates) };
      fs.writeFileSync(values.stats, formatStatistics(stats));
      process.stdout.write(`statistics: ${values.stats}\n`);
    }
    if (values.output && result) {
      const json = { method, images: result.images, skipped: result.skipped, ranges: rangesToJSON(result.ranges) };
      fs.writeFileSync(values.output, `${JSON.stringify(json, null, 1)}\n`);
      process.stdout.write(`ranges: ${values.output}\n`);
    }
    return 0;
  },
};
