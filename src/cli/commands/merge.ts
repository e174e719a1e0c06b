/**
 * `qstudio merge <stats.json>... -o ranges.json [--stats merged.json]`: the shards of one calibration
 * (`qstudio calibrate --shard i/n --stats …`, run anywhere, by any batch scheduler) combined into the ranges
 * one run over all the images gives, exactly (collector merges are exact, core/calibrate/run/statisticsFile.ts).
 * A later round of a sequential calibration merges onto the statistics of the rounds before (`--after`).
 */
import fs from 'node:fs';
import {
  formatStatistics,
  mergeRound,
  mergeStatisticsFiles,
  parseStatistics,
  rangesOfFile,
} from '../../core/calibrate/run/statisticsFile.ts';
import { rangesToJSON } from '../calibration/calibrateFolder.ts';
import { parse, readInputFile, UsageError } from '../usage.ts';

const usage = `Usage: qstudio merge <stats.json>... -o <ranges.json> [--stats <merged.json>] [--after <merged.json>]

Merges the statistics files that \`qstudio calibrate --shard i/n --stats <file>\` wrote for the shares of one
calibration into the ranges of one run over all the images (the same, not an approximation), in the ranges
format \`qstudio quantize --ranges\` and the studio take. Files of different configurations are refused.

Options:
  -o, --output <file>   where to write the ranges JSON
  --stats <file>        also write the merged statistics (to merge again later)
  --after <merged.json> the files are a later round of a sequential calibration, one per share, run with
                        \`qstudio calibrate --shard i/n --after <merged.json>\`: merge them onto it. Ranges
                        (-o) come only once every round is merged (see \`qstudio calibrate --help\`)`;

export const mergeCommand = {
  summary: 'merge the statistics of calibration shards into ranges',
  usage,
  async run(args: string[]): Promise<number> {
    const { values, positionals } = parse(args, {
      output: { type: 'string', short: 'o' },
      stats: { type: 'string' },
      after: { type: 'string' },
    });
    if (positionals.length === 0) throw new UsageError('give the statistics files to merge');
    if (!values.output && !values.stats) throw new UsageError('-o <ranges.json> (or --stats <file>) is required');
    const read = (where: string) => ({
      where,
      file: parseStatistics(new TextDecoder().decode(readInputFile(where)), `"${where}"`),
    });
    const files = positionals.map(read);
    const merged = values.after ? mergeRound(read(values.after), files) : mergeStatisticsFiles(files);
    // Ranges before a sequential calibration's last round would be a named error; statistics are written first.
    const ranges = values.output
      ? () => rangesOfFile(merged, values.stats ? `"${values.stats}"` : 'the merged statistics')
      : null;
    if (values.stats) fs.writeFileSync(values.stats, formatStatistics(merged));
    if (ranges) {
      const json = {
        method: merged.method,
        images: merged.images,
        shards: merged.shards,
        ranges: rangesToJSON(ranges()),
      };
      fs.writeFileSync(values.output!, `${JSON.stringify(json, null, 1)}\n`);
    }
    const seq = merged.sequential;
    const rounds = seq ? `, round${seq.round > 0 ? `s 1–${seq.round + 1}` : ' 1'} of ${seq.rounds}` : '';
    // Samples: images or tensors (a statistics file counts either as its `images`).
    process.stdout.write(
      `merged ${merged.shards} shard${merged.shards === 1 ? '' : 's'}, ${merged.images} samples, ${merged.states.size} tensors${rounds}\n`,
    );
    return 0;
  },
};
