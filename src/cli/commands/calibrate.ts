/**
 * `qstudio calibrate <model.onnx> --calib <dir> --config <preset|config.json> [--preprocess …] -o ranges.json`:
 * activation ranges from a folder of images, with the calibration method the configuration names.
 */
import fs from 'node:fs';
import { activationMethodName } from '../../core/calibrate/methodFromConfig.ts';
import { calibrateFolder, rangesToJSON } from '../calibration/calibrateFolder.ts';
import { loadConfigArgument } from '../configArgument.ts';
import { readModelFile } from '../modelFile.ts';
import { parse, UsageError } from '../usage.ts';

const usage = `Usage: qstudio calibrate <model.onnx> --calib <dir> --config <preset|config.json> [--preprocess <preset|file.json>] -o <ranges.json>

Runs the float model over the images of a folder (.jpg, .png) and writes the calibrated range of every
tensor, with the calibration method of the configuration (MinMax, Percentile, Entropy, MinMSE, ...).

Options:
  --calib <dir>              folder of calibration images
  --config <preset|file>     the configuration whose calibration method to use (default U8S8: MinMax)
  --preprocess <preset|file> auto (recognised from the model, printed), a preset (imagenet, unit, yolo,
                             ultralytics, ultraface, y-channel, bgr-255, paddleocr-det, paddleocr-rec), or the page's JSON
  -o, --output <file>        where to write the ranges JSON`;

export const calibrateCommand = {
  summary: 'activation ranges from a folder of images',
  usage,
  async run(args: string[]): Promise<number> {
    const { values, positionals } = parse(args, {
      calib: { type: 'string' },
      config: { type: 'string', default: 'U8S8' },
      preprocess: { type: 'string' },
      output: { type: 'string', short: 'o' },
    });
    if (positionals.length !== 1) throw new UsageError('give exactly one model file');
    if (!values.calib) throw new UsageError('--calib <dir> is required');
    if (!values.output) throw new UsageError('-o <ranges.json> is required');
    const modelPath = positionals[0];
    const { model } = readModelFile(modelPath);
    const { config } = loadConfigArgument(values.config!, { nodesToExclude: [], opTypesToExclude: [], subgraphsToExclude: [] });
    const result = await calibrateFolder(model, values.calib, config, values.preprocess);
    const json = { method: activationMethodName(config), images: result.images, skipped: result.skipped, ranges: rangesToJSON(result.ranges) };
    fs.writeFileSync(values.output, `${JSON.stringify(json, null, 1)}\n`);
    process.stdout.write(`ranges: ${values.output}\n`);
    return 0;
  },
};
