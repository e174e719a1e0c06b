/**
 * Small models built in code for the quantizer's and the metrics' tests: real graphs onnxruntime runs,
 * with the calibrated ranges a test would otherwise have to invent each time.
 */
import { DataType, intAttribute, makeGraph, makeModel, makeNode, makeTensor, makeValueInfo, type ModelProto } from '../onnx/index.ts';
import { intsAttribute } from '../prepare/attributes.ts';

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

/**
 * A LayerNormalization written out as exporters do below opset 17, shape arithmetic included:
 * x [2, 3, 4] → Shape → Gather(0) → Concat(·, [-1]) gives an int64 target shape for Reshape; the
 * float path is Reshape → ReduceMean → Sub → Mul → y. A Cast of the int64 batch size back to float and
 * an Equal → Where show the other kinds of non-float tensor exporters write.
 */
export function shapeArithmeticModel(): ModelProto {
  const int64 = (name: string, values: number[]) => makeTensor(name, DataType.INT64, [values.length], BigInt64Array.from(values.map(BigInt)));
  return makeModel(makeGraph({
    node: [
      makeNode('Shape', ['x'], ['x_shape']),
      makeNode('Gather', ['x_shape', 'zero'], ['batch'], '', [intAttribute('axis', 0)]),
      makeNode('Concat', ['batch', 'minus_one'], ['flat_shape'], '', [intAttribute('axis', 0)]),
      makeNode('Reshape', ['x', 'flat_shape'], ['flat']),
      makeNode('ReduceMean', ['flat'], ['mean'], '', [intAttribute('keepdims', 1), intsAttribute('axes', [1])]),
      makeNode('Sub', ['flat', 'mean'], ['centred']),
      makeNode('Cast', ['batch'], ['batch_float'], '', [intAttribute('to', DataType.FLOAT)]),
      makeNode('Mul', ['centred', 'batch_float'], ['scaled']),
      makeNode('Greater', ['scaled', 'zero_float'], ['positive']),
      makeNode('Where', ['positive', 'scaled', 'zero_float'], ['y']),
    ],
    input: [makeValueInfo('x', DataType.FLOAT, [2, 3, 4])],
    output: [makeValueInfo('y', DataType.FLOAT, [2, 12])],
    initializer: [int64('zero', [0]), int64('minus_one', [-1]), makeTensor('zero_float', DataType.FLOAT, [], Float32Array.of(0))],
  }), { '': 13 });
}

/** x [1, 1, 4, 4] → MaxPool(2×2) → pooled (float) and indices (int64, MaxPool's second output), both graph outputs. */
export function maxPoolWithIndicesModel(): ModelProto {
  return makeModel(makeGraph({
    node: [makeNode('MaxPool', ['x'], ['pooled', 'indices'], '', [intsAttribute('kernel_shape', [2, 2]), intsAttribute('strides', [2, 2])])],
    input: [makeValueInfo('x', DataType.FLOAT, [1, 1, 4, 4])],
    output: [makeValueInfo('pooled', DataType.FLOAT, [1, 1, 2, 2]), makeValueInfo('indices', DataType.INT64, [1, 1, 2, 2])],
  }), { '': 13 });
}

/** A range for every tensor a node of `model` produces, whatever its type, as a ranges file from another tool may carry. */
export function rangesForEveryTensor(model: ModelProto): Map<string, { min: number; max: number }> {
  const out = new Map<string, { min: number; max: number }>([[model.graph!.input[0].name!, { min: -1, max: 1 }]]);
  for (const n of model.graph!.node) for (const o of n.output) out.set(o, { min: -2, max: 3 });
  return out;
}
