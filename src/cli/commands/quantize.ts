/**
 * `qstudio quantize`: a float model, ranges and a configuration in; a QDQ model and a JSON summary of
 * what was quantized and what stayed float out. Exclusions given on the command line add to those of
 * the configuration.
 */
import fs from 'node:fs';
import path from 'node:path';
import { encodeParts } from '../../core/onnx/index.ts';
import { quantizeModel } from '../../core/quantize/quantizeModel.ts';
import { loadConfigArgument } from '../configArgument.ts';
import { readRangesFile } from '../rangesFile.ts';
import { calibrateFolder } from '../calibration/calibrateFolder.ts';
import { readModelFile } from '../modelFile.ts';
import { parse, UsageError } from '../usage.ts';

const usage = `Usage: qstudio quantize <model.onnx> (--calib <dir> [--preprocess <preset|file>] | --ranges <ranges.json>)
                        --config <preset|config.json> -o <out.onnx>
                        [--exclude-subgraph "<start,...>:<end,...>"]... [--exclude-nodes <id,...>]...
                        [--exclude-op-types <type,...>] [--per-channel] [--summary <file.json>]

Writes a QDQ model (QuantizeLinear/DequantizeLinear) and a JSON summary of what was quantized and
what stayed float (default: <out>.json).

Options:
  --calib <dir>              calibrate on this folder's images first (.jpg, .png)
  --preprocess <preset|file> how images become input tensors: imagenet, unit, yolo, ultraface, y-channel,
                             bgr-255, or the JSON the studio exports
  --ranges <file>            calibrated ranges instead: {"tensor": [min, max], ...} (as "qstudio calibrate" writes)
  --config <preset|file>     XINT8, VINT8, A8W8, A16W8, U8S8, S8S8, U8S8_AAWS, S8S8_AAWS, or a config JSON
  --exclude-subgraph <s:e>   keep float the nodes between start and end nodes (Quark subgraphs_to_exclude)
  --exclude-nodes <ids>      keep these nodes float (ids, names or regular expressions; comma-separated)
  --exclude-op-types <types> keep every node of these op types float
  --per-channel              per-channel weights (raises the opset to 13 where needed)
  -o, --output <file>        the quantized model
  --summary <file>           where to write the JSON summary`;

const list = (values: string[] | undefined) => (values ?? []).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);

/** "a,b:c,d" → { starts: [a, b], ends: [c, d] }. */
export function parseSubgraphArgument(text: string) {
  const parts = text.split(':');
  if (parts.length !== 2) throw new UsageError(`--exclude-subgraph "${text}": expected "<start,...>:<end,...>"`);
  const [starts, ends] = parts.map((p) => list([p]));
  if (!starts.length || !ends.length) throw new UsageError(`--exclude-subgraph "${text}": give at least one start and one end node`);
  return { starts, ends };
}

export const quantizeCommand = {
  summary: 'write a QDQ model from a float model, ranges and a preset or config',
  usage,
  async run(args: string[]): Promise<number> {
    const { values, positionals } = parse(args, {
      ranges: { type: 'string' },
      calib: { type: 'string' },
      preprocess: { type: 'string' },
      config: { type: 'string' },
      output: { type: 'string', short: 'o' },
      summary: { type: 'string' },
      'exclude-subgraph': { type: 'string', multiple: true },
      'exclude-nodes': { type: 'string', multiple: true },
      'exclude-op-types': { type: 'string', multiple: true },
      'per-channel': { type: 'boolean', default: false },
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one model file');
    if (!values.ranges === !values.calib) throw new UsageError('give either --calib <dir> or --ranges <ranges.json>');
    if (!values.config) throw new UsageError('--config is required');
    if (!values.output) throw new UsageError('-o <out.onnx> is required');
    const modelPath = positionals[0];
    const { config, name } = loadConfigArgument(values.config, {
      perChannel: values['per-channel'] || undefined,
      nodesToExclude: list(values['exclude-nodes']),
      opTypesToExclude: list(values['exclude-op-types']),
      subgraphsToExclude: (values['exclude-subgraph'] ?? []).map(parseSubgraphArgument),
    });
    const { model } = readModelFile(modelPath);
    const ranges = values.ranges ? readRangesFile(values.ranges) : (await calibrateFolder(model, values.calib!, config, values.preprocess)).ranges;
    const start = performance.now();
    const { model: quantized, report } = quantizeModel(model, ranges, config, name);
    const parts = encodeParts(quantized);
    fs.writeFileSync(values.output, Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))));
    const summaryPath = values.summary ?? `${values.output.replace(/\.onnx$/i, '')}.json`;
    fs.writeFileSync(summaryPath, `${JSON.stringify(report, null, 2)}\n`);
    const c = report.counts;
    process.stdout.write(
      `${path.basename(values.output)}: ${c.quantized} of ${c.nodes} nodes quantized, ${c.float} float, ` +
        `${c.activationPairs} Q/DQ pairs, opset ${report.opset.before} → ${report.opset.after} ` +
        `(${((performance.now() - start) / 1000).toFixed(2)} s)\nsummary: ${summaryPath}\n`,
    );
    for (const w of report.warnings.slice(0, 10)) process.stderr.write(`warning: ${w}\n`);
    return 0;
  },
};
