/**
 * Writes a tiny model whose one weight lives in an external data file, for the external-data spec:
 * `node --import tsx e2e/builders/externalDataModel.ts OUT_DIR` → OUT_DIR/split.onnx and
 * OUT_DIR/weights.bin. It runs as its own process because the core's schema is a JSON import, which
 * Playwright's loader does not take; tsx does. The shared fixtures have no such model.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  DataType,
  encode,
  makeGraph,
  makeModel,
  makeNode,
  makeValueInfo,
  type TensorProto,
} from '../../src/core/onnx/index.ts';

const outDir = process.argv[2];
if (!outDir) throw new Error('usage: externalDataModel.ts OUT_DIR');

const weight = {
  name: 'w',
  dims: [4],
  data_type: DataType.FLOAT,
  data_location: 1, // EXTERNAL
  external_data: [{ key: 'location', value: 'weights.bin' }],
} as TensorProto;
const model = makeModel(
  makeGraph({
    node: [makeNode('Relu', ['w'], ['y'], 'relu')],
    initializer: [weight],
    input: [],
    output: [makeValueInfo('y', DataType.FLOAT, [4])],
  }),
);

fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, 'split.onnx'), encode(model));
fs.writeFileSync(path.join(outDir, 'weights.bin'), new Uint8Array(new Float32Array([1, -2, 3, -4]).buffer));
