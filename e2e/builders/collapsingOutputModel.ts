/**
 * Writes a model whose quantized output collapses to all zeros on some samples, for e2e/eval-all-zero.spec.ts
 * (which cannot import the core's protobuf schema itself): y = x · I (a MatMul by the 8×8 identity) and three .npy
 * samples: one reaching 100, which sets an 8-bit scale of at least 100 / 255, and two whose values (0.010–0.017)
 * all round to zero at that scale, while the float output keeps them.
 * Usage: node --import tsx e2e/builders/collapsingOutputModel.ts <dir>   (writes collapse.onnx and data/*.npy)
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  DataType,
  encode,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
} from '../../src/core/onnx/index.ts';
import { npyBytes } from '../../tests/helpers/npyFiles.ts';

const N = 8;
const identity = Float32Array.from({ length: N * N }, (_, i) => (i % (N + 1) === 0 ? 1 : 0));
const graph = makeGraph({
  name: 'collapse',
  node: [makeNode('MatMul', ['x', 'w'], ['y'], 'matmul')],
  input: [makeValueInfo('x', DataType.FLOAT, [1, N])],
  output: [makeValueInfo('y', DataType.FLOAT, [1, N])],
  initializer: [makeTensor('w', DataType.FLOAT, [N, N], identity)],
});
const dir = process.argv[2];
fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
fs.writeFileSync(path.join(dir, 'collapse.onnx'), encode(makeModel(graph, { '': 13 }, 7)));
const samples: Record<string, (i: number) => number> = {
  bright: (i) => (100 * (i + 1)) / N,
  faint1: (i) => 0.01 + i * 0.001,
  faint2: (i) => 0.017 - i * 0.001,
};
for (const [name, value] of Object.entries(samples))
  fs.writeFileSync(
    path.join(dir, 'data', `${name}.npy`),
    npyBytes(
      Float32Array.from({ length: N }, (_, i) => value(i)),
      [1, N],
      '<f4',
    ),
  );
