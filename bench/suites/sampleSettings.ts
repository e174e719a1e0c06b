/**
 * Suite "sample-settings": which quantization the sample's one click runs, measured on the sample's own drawn scenes
 * (12 calibrate; 30 held out, of which the page judges the first 6) by the command line and onnxruntime-node, at
 * 'all' and 'basic', with the text boxes a detector's user judges by. The click runs the best row (sampleService.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS } from '../previewServer.ts';

/** The candidates: the page's default, the function rules, A8W8 as its presets choose and per channel, 16-bit. */
const CONFIGS: [string, string[]][] = [
  ['XINT8 (the page default)', ['--config', 'XINT8']],
  ['XINT8 + function rules', ['--config', 'XINT8', '--attention']],
  ['A8W8 (held-in method)', ['--config', 'A8W8']],
  ['A8W8 per channel (held-in method)', ['--config', 'A8W8', '--per-channel']],
  [
    'A8W8 per channel, Sequential (the click)',
    ['--config', 'A8W8', '--per-channel', '--calibration-method', 'Sequential'],
  ],
  [
    'A8W8 per channel, Sequential + function rules',
    ['--config', 'A8W8', '--per-channel', '--calibration-method', 'Sequential', '--attention'],
  ],
  ['A16W8', ['--config', 'A16W8']],
];

export const sampleSettingsSuite: Suite = {
  name: 'sample-settings',
  title:
    "The sample's one-click settings: PP-OCRv4 det on its drawn scenes (12 calibrate, 30 held out; the page judges the first 6), onnxruntime-node",
  columns: [
    ['config', 'configuration'],
    ['cosine6All', 'cosine, 6 held out (all)'],
    ['cosine6Basic', 'cosine, 6 (basic)'],
    ['cosine30All', 'cosine, 30 held out (all)'],
    ['cosine30Basic', 'cosine, 30 (basic)'],
    ['psnr30', 'PSNR dB, 30'],
    ['map50_30', 'boxes mAP@0.5 %, 30'],
    ['map5095_30', 'boxes mAP@0.5:0.95 %, 30'],
    ['boxes30', 'float boxes, 30 scenes'],
    ['quantizeSeconds', 'calibrate + quantize s (wall)'],
    ['loadAverage', 'load average'],
  ],
  async run() {
    fs.rmSync(path.join(import.meta.dirname, '../tmp/sample-settings'), { recursive: true, force: true });
    const rows: Row[] = [];
    for (const [label, args] of CONFIGS)
      rows.push(await runCase('cases/sampleSettings.ts', [String(PREVIEW_PORTS['sample-settings']), label, ...args]));
    return rows;
  },
};
