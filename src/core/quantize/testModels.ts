/**
 * Small models built in code for the quantizer's and the metrics' tests: real graphs onnxruntime runs,
 * with the calibrated ranges a test would otherwise have to invent each time.
 */
import { DataType, makeGraph, makeModel, makeNode, makeTensor, makeValueInfo, type ModelProto } from '../onnx/index.ts';

/** x → Conv(w, b) → c → Relu → y (graph output), y → Exp (no rule, stays float) → z. */
export function convReluModel(): ModelProto {
  const w = makeTensor('w', DataType.FLOAT, [2, 1, 1, 1], Float32Array.of(0.5, -0.25));
  const b = makeTensor('b', DataType.FLOAT, [2], Float32Array.of(0.1, 0.2));
  return makeModel(makeGraph({
    node: [makeNode('Conv', ['x', 'w', 'b'], ['c']), makeNode('Relu', ['c'], ['y']), makeNode('Exp', ['y'], ['z'])],
    input: [makeValueInfo('x', DataType.FLOAT, [1, 1, 2, 2])],
    output: [makeValueInfo('y', DataType.FLOAT, [1, 2, 2, 2]), makeValueInfo('z', DataType.FLOAT, [1, 2, 2, 2])],
    initializer: [w, b],
  }), { '': 13 });
}

/** Calibrated ranges of convReluModel's tensors. */
export const CONV_RELU_RANGES: ReadonlyMap<string, { min: number; max: number }> = new Map([
  ['x', { min: -1, max: 1 }],
  ['c', { min: -0.5, max: 0.7 }],
  ['y', { min: 0, max: 0.7 }],
  ['z', { min: 1, max: 2.1 }],
]);
