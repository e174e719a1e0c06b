/**
 * A small graph in ONNX Runtime's dynamic and QOperator forms, as quantize_dynamic and the QOperator format write
 * them: ConvInteger after DynamicQuantizeLinear (its weight's scale in the Mul that rescales its output), and a
 * QLinearConv reading a QuantizeLinear's codes, with per-channel weight scales. For the Q/DQ fold's tests.
 */
import {
  DataType,
  makeGraph,
  makeNode,
  makeTensor,
  makeValueInfo,
  type GraphProto,
} from '../../src/core/onnx/index.ts';

export function integerOpsGraph(): GraphProto {
  const f = (name: string, v: number) => makeTensor(name, DataType.FLOAT, [], Float32Array.of(v));
  const u8 = (name: string, dims: number[], v: number[]) => makeTensor(name, DataType.UINT8, dims, Uint8Array.from(v));
  return makeGraph({
    node: [
      makeNode('DynamicQuantizeLinear', ['x'], ['xq', 'xs', 'xz'], 'dql'),
      makeNode('ConvInteger', ['xq', 'w', 'xz', 'wz'], ['ci'], 'conv_int'),
      makeNode('Cast', ['ci'], ['cf'], 'cast'),
      makeNode('Mul', ['xs', 'ws'], ['sm'], 'scales_mul'),
      makeNode('Mul', ['cf', 'sm'], ['y0'], 'rescale'),
      makeNode('QuantizeLinear', ['y0', 'ys', 'yz'], ['yq'], 'q'),
      makeNode('QLinearConv', ['yq', 'ys', 'yz', 'w2', 'w2s', 'w2z', 'os', 'oz'], ['o'], 'qlinear'),
    ],
    input: [makeValueInfo('x', DataType.FLOAT, [1, 1, 2, 2])],
    output: [makeValueInfo('o', DataType.UINT8, [1, 2, 2, 2])],
    initializer: [
      u8('w', [1, 1, 1, 1], [130]),
      u8('wz', [], [128]),
      f('ws', 0.0625),
      f('ys', 0.5),
      u8('yz', [], [10]),
      u8('w2', [2, 1, 1, 1], [1, 2]),
      makeTensor('w2s', DataType.FLOAT, [2], Float32Array.of(0.25, 0.125)),
      u8('w2z', [2], [0, 0]),
      f('os', 2),
      u8('oz', [], [0]),
    ],
  });
}
