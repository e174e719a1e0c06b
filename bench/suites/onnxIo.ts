/** Suite "onnx-io": decode/encode time and peak memory for every fixture and the synthetic 100 MB model. */
import path from 'node:path';
import { runCase, type Suite } from '../harness.ts';

/** Where the synthetic ≥100 MB model is written once and reused by the suites that need it. */
export const SYNTHETIC_PATH = path.resolve(import.meta.dirname, '../tmp/synthetic-mlp-26x1024.onnx');
const MODELS = path.resolve(import.meta.dirname, '../../../shared/fixtures/models');
const FIXTURES = [
  'mnist.onnx',
  'super-resolution-10.onnx',
  'ultraface-rfb-320.onnx',
  'yunet-n-dynamic.onnx',
  'yolox-nano.onnx',
];

export const onnxIoSuite: Suite = {
  name: 'onnx-io',
  title: 'ONNX decode and encode (Node, one process per model)',
  columns: [
    ['model', 'model'],
    ['bytes', 'file bytes'],
    ['decodeMs', 'decode ms'],
    ['indexAndSummaryMs', 'index + summary ms'],
    ['encodeMs', 'encode ms'],
    ['encodePartsMs', 'encode in parts ms'],
    ['peakRssMB', 'peak RSS MB'],
  ],
  async run() {
    const rows = [];
    for (const f of FIXTURES) rows.push(await runCase('cases/onnxIo.ts', [path.join(MODELS, f)]));
    const synthetic = await runCase('cases/makeSynthetic.ts', [SYNTHETIC_PATH]);
    rows.push({
      ...(await runCase('cases/onnxIo.ts', [String(synthetic.path)])),
      model: 'synthetic MLP, 104 MB of weights',
    });
    return rows;
  },
};
