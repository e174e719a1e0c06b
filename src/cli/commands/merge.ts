/**
 * `qstudio merge <stats.json>... -o ranges.json [--stats merged.json]`: the shards of one calibration
 * (`qstudio calibrate --shard i/n --stats …`, run anywhere, by any batch scheduler) combined into the ranges
 * one run over all the images gives, exactly (collector merges are exact, core/calibrate/statisticsFile.ts).
 */
import fs from 'node:fs';
import { rangesOf } from '../../core/calibrate/statistics.ts';
import { formatStatistics, mergeStatisticsFiles, parseStatistics } from '../../core/calibrate/statisticsFile.ts';
import { rangesToJSON } from '../calibration/calibrateFolder.ts';
import { parse, readInputFile, UsageError } from '../usage.ts';

const usage = `Usage: qstudio merge <stats.json>... -o <ranges.json> [--stats <merged.json>]

Merges the statistics files that \`qstudio calibrate --shard i/n --stats <file>\` wrote for the shares of one
calibration into the ranges of one run over all the images (the same, not an approximation), in the ranges
format \`qstudio quantize --ranges\` and the studio take. Files of different configurations are refused.

Options:
  -o, --output <file>   where to write the ranges JSON
  --stats <file>        also write the merged statistics (to merge again later)`;

export const mergeCommand = {
  summary: 'merge the statistics of calibration shards into ranges',
  usage,
  async run(args: string[]): Promise<number> {
    const { values, positionals } = parse(args, {
      output: { type: 'string', short: 'o' },
      stats: { type: 'string' },
    });
    if (positionals.length === 0) throw new UsageError('give the statistics files to merge');
    if (!values.output && !values.stats) throw new UsageError('-o <ranges.json> (or --stats <file>) is required');
    const files = positionals.map((where) => ({ where, file: parseStatistics(new TextDecoder().decode(readInputFile(where)), `"${where}"`) }));
    const merged = mergeStatisticsFiles(files);
    if (values.stats) fs.writeFileSync(values.stats, formatStatistics(merged));
    if (values.output) {
      const json = { method: merged.method, images: merged.images, shards: merged.shards, ranges: rangesToJSON(rangesOf(merged.states)) };
      fs.writeFileSync(values.output, `${JSON.stringify(json, null, 1)}\n`);
    }
    process.stdout.write(`merged ${merged.shards} shard${merged.shards === 1 ? '' : 's'}, ${merged.images} images, ${merged.states.size} tensors\n`);
    return 0;
  },
};
