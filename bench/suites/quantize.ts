/** Suite "quantize": time and peak memory to quantize each fixture (XINT8 and U8S8) and the synthetic 104 MB model. */
import path from 'node:path';
import { runCase, type Row, type Suite } from '../harness.ts';
import { SYNTHETIC_PATH } from './onnxIo.ts';

const MODELS = path.resolve(import.meta.dirname, '../../../shared/fixtures/models');
const FIXTURES: [string, string[]][] = [
  ['mnist.onnx', []],
  ['super-resolution-10.onnx', ['batch_size=1']],
  ['ultraface-rfb-320.onnx', []],
  ['yunet-n-dynamic.onnx', ['batch=1', 'height=320', 'width=320']],
  ['yolox-nano.onnx', []],
];

export const quantizeSuite: Suite = {
  name: 'quantize',
  title: 'Quantization time and peak memory (Node, one process per case; median of 3; ranges given)',
  columns: [
    ['model', 'model'],
    ['preset', 'preset'],
    ['quantizedNodes', 'quantized nodes'],
    ['bytes', 'float bytes'],
    ['quantizedBytes', 'QDQ bytes'],
    ['quantizeMs', 'quantize + encode ms'],
    ['anchorMs', 'U8S8 in the same process ms'],
    ['vsAnchor', 'time vs U8S8 (same process, alternating)'],
    ['peakRssMB', 'peak RSS MB'],
  ],
  async run() {
    const rows: Row[] = [];
    for (const [f, dims] of FIXTURES) {
      for (const preset of ['U8S8', 'XINT8'])
        rows.push(
          await runCase('cases/quantize.ts', [
            path.join(MODELS, f),
            preset,
            ...dims,
            ...(preset === 'U8S8' ? [] : ['anchor=U8S8']),
          ]),
        );
    }
    await runCase('cases/makeSynthetic.ts', [SYNTHETIC_PATH]);
    for (const preset of ['U8S8', 'XINT8']) {
      rows.push({
        ...(await runCase('cases/quantize.ts', [
          SYNTHETIC_PATH,
          preset,
          ...(preset === 'U8S8' ? [] : ['anchor=U8S8']),
        ])),
        model: 'synthetic MLP, 104 MB of weights',
      });
    }
    return rows;
  },
};
