/**
 * Writes a small image model whose output is no head the studio knows (a [1, 8, 784] feature map of a
 * 30 × 30 input), for e2e/task-head.spec.ts, which cannot import the core's protobuf schema itself.
 * Usage: node --import tsx e2e/builders/unknownHeadModel.ts <file.onnx>
 */
import fs from 'node:fs';
import {
  DataType,
  encode,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
} from '../../src/core/onnx/index.ts';

const weights = Float32Array.from({ length: 8 * 3 * 3 * 3 }, (_, i) => Math.sin(i * 1.7) * 0.3);
const graph = makeGraph({
  name: 'unknown-head',
  node: [
    makeNode('Conv', ['image', 'w'], ['maps'], 'conv'),
    makeNode('Relu', ['maps'], ['relu'], 'relu'),
    makeNode('Reshape', ['relu', 'shape'], ['features'], 'flatten'),
  ],
  input: [makeValueInfo('image', DataType.FLOAT, [1, 3, 30, 30])],
  output: [makeValueInfo('features', DataType.FLOAT, [1, 8, 784])],
  initializer: [
    makeTensor('w', DataType.FLOAT, [8, 3, 3, 3], weights),
    makeTensor('shape', DataType.INT64, [3], BigInt64Array.from([1n, 8n, 784n])),
  ],
});
fs.writeFileSync(process.argv[2], encode(makeModel(graph, { '': 13 }, 7)));
