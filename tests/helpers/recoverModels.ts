/**
 * Small models for the accuracy-recovery tests (CLE, bias correction, AdaRound, AdaQuant): convolution chains
 * whose channels have very different weight ranges (what CLE exists for), with seeded weights, plus a Node
 * runtime over seeded inputs shaped like the model's input.
 */
import {
  AttributeType,
  DataType,
  graphAttribute,
  intAttribute,
  floatAttribute,
  makeGraph,
  makeNode,
  makeTensor,
  tensorAttribute,
  type AttributeProto,
  type ModelProto,
  type NodeProto,
  type TensorProto,
} from '../../src/core/onnx/index.ts';
import { float32Tensor, type Feeds } from '../../src/cli/runtime/ortNode.ts';
import { seededFloats } from './fixtures.ts';
import { floatIO, smallModel } from './smallModels.ts';

/** Seeded weights whose output channel c is scaled by spread^(c / (channels − 1)), so channel ranges differ by `spread`. */
function weights(name: string, dims: number[], seed: number, spread = 1): ReturnType<typeof makeTensor> {
  const count = dims.reduce((a, b) => a * b, 1);
  const data = seededFloats(count, seed, -1, 1);
  const per = count / dims[0];
  for (let c = 0; c < dims[0]; c++) {
    const f = spread ** (dims[0] > 1 ? c / (dims[0] - 1) : 0);
    for (let k = 0; k < per; k++) data[c * per + k] *= f;
  }
  return makeTensor(name, DataType.FLOAT, dims, data);
}

const ints = (name: string, values: number[]): AttributeProto => {
  const { i: _unused, ...rest } = intAttribute(name, 0);
  return { ...rest, type: AttributeType.INTS, ints: values };
};

const conv = (inputs: string[], out: string, name: string, kernel: number, group = 1) =>
  makeNode('Conv', inputs, [out], name, [
    intAttribute('group', group),
    ints('kernel_shape', [kernel, kernel]),
    ints('pads', Array(4).fill(kernel >> 1)),
  ]);

/**
 * x[1,3,12,12] → Conv 3→8 (3×3) → Relu → depthwise Conv 8 (3×3) → LeakyRelu → Conv 8→6 (1×1) → y, and a
 * second branch Conv 3→4 → Sigmoid·Mul (SiLU) → Conv 4→4 → z that CLE must skip.
 */
export function convChainModel(): ModelProto {
  return smallModel({
    opset: 13,
    inputs: [floatIO('x', [1, 3, 12, 12])],
    outputs: [floatIO('y', [1, 6, 12, 12]), floatIO('z', [1, 4, 12, 12])],
    initializers: [
      weights('w1', [8, 3, 3, 3], 1, 50),
      weights('b1', [8], 2, 1),
      weights('w2', [8, 1, 3, 3], 3, 0.02),
      weights('b2', [8], 4, 1),
      weights('w3', [6, 8, 1, 1], 5),
      weights('b3', [6], 6),
      weights('w4', [4, 3, 3, 3], 7, 10),
      weights('w5', [4, 4, 1, 1], 8),
    ],
    nodes: [
      conv(['x', 'w1', 'b1'], 'c1', 'conv1', 3),
      makeNode('Relu', ['c1'], ['r1'], 'relu1'),
      conv(['r1', 'w2', 'b2'], 'c2', 'dw2', 3, 8),
      makeNode('LeakyRelu', ['c2'], ['r2'], 'leaky2', [floatAttribute('alpha', 0.1)]),
      conv(['r2', 'w3', 'b3'], 'y', 'conv3', 1),
      conv(['x', 'w4'], 'c4', 'conv4', 3),
      makeNode('Sigmoid', ['c4'], ['s4'], 'sig4'),
      makeNode('Mul', ['c4', 's4'], ['m4'], 'mul4'),
      conv(['m4', 'w5'], 'z', 'conv5', 1),
    ],
  });
}

/**
 * convChainModel's first chain inside an If, as Silero VAD's opset-18 export keeps its compute: the main graph only
 * decides the branch (ReduceSum(x) > −1e9, always true). then: Conv 3→8 (3×3, w1 from the main graph) → Relu →
 * depthwise Conv 8 (w2 from the main graph) → LeakyRelu → Conv 8→6 (1×1, its weight a Constant node of the branch)
 * → y; else: Conv 3→6 (1×1) → y. CLE has two pairs in the then branch; bias correction and fine-tuning four layers.
 */
export function ifConvChainModel(): ModelProto {
  const w3 = weights('w3', [6, 8, 1, 1], 5);
  return alwaysThenIfModel(
    [
      conv(['x', 'w1', 'b1'], 'c1', 'conv1', 3),
      makeNode('Relu', ['c1'], ['r1'], 'relu1'),
      conv(['r1', 'w2', 'b2'], 'c2', 'dw2', 3, 8),
      makeNode('LeakyRelu', ['c2'], ['r2'], 'leaky2', [floatAttribute('alpha', 0.1)]),
      makeNode('Constant', [], ['w3'], 'w3_constant', [tensorAttribute('value', w3)]),
      conv(['r2', 'w3', 'b3'], 'y_then', 'conv3', 1),
    ],
    [
      weights('w1', [8, 3, 3, 3], 1, 50),
      weights('b1', [8], 2, 1),
      weights('w2', [8, 1, 3, 3], 3, 0.02),
      weights('b2', [8], 4, 1),
      weights('b3', [6], 6),
      weights('we', [6, 3, 1, 1], 9),
    ],
  );
}

/**
 * A Conv of the main graph whose output an If's then branch reads without the If listing it (an outer-scope read, as
 * exporters write): x → Conv 3→8 (3×3) → a; If(ReduceSum(x) > −1e9): then Conv 8→6 (1×1) on a → y, else Conv 3→6
 * (1×1) on x → y.
 */
export function ifCapturedConvModel(): ModelProto {
  return alwaysThenIfModel(
    [conv(['a', 'w1', 'b1'], 'y_then', 'conv1', 1)],
    [
      weights('w0', [8, 3, 3, 3], 1),
      weights('b0', [8], 2),
      weights('w1', [6, 8, 1, 1], 3),
      weights('b1', [6], 4),
      weights('we', [6, 3, 1, 1], 5),
    ],
    [conv(['x', 'w0', 'b0'], 'a', 'conv0', 3)],
  );
}

/**
 * x [1, 3, 12, 12] → If(ReduceSum(x) > −1e9, always true) → y [1, 6, 12, 12]: the then branch's nodes end in y_then;
 * the else branch is Conv 3→6 (1×1, weight `we` among the initializers) on x. `before` runs in the main graph ahead
 * of the If.
 */
function alwaysThenIfModel(thenNodes: NodeProto[], initializers: TensorProto[], before: NodeProto[] = []): ModelProto {
  const thenBranch = makeGraph({
    name: 'then',
    node: thenNodes,
    input: [],
    output: [floatIO('y_then', [1, 6, 12, 12])],
  });
  const elseBranch = makeGraph({
    name: 'else',
    node: [conv(['x', 'we'], 'y_else', 'conv_else', 1)],
    input: [],
    output: [floatIO('y_else', [1, 6, 12, 12])],
  });
  return smallModel({
    opset: 13,
    inputs: [floatIO('x', [1, 3, 12, 12])],
    outputs: [floatIO('y', [1, 6, 12, 12])],
    initializers: [...initializers, makeTensor('floor', DataType.FLOAT, [], Float32Array.of(-1e9))],
    nodes: [
      makeNode('ReduceSum', ['x'], ['s'], 'sum', [intAttribute('keepdims', 0)]),
      makeNode('Greater', ['s', 'floor'], ['cond'], 'decide'),
      ...before,
      makeNode('If', ['cond'], ['y'], 'if', [
        graphAttribute('then_branch', thenBranch),
        graphAttribute('else_branch', elseBranch),
      ]),
    ],
  });
}

/** `count` seeded inputs for convChainModel, values in [−1, 1). */
export function convChainFeeds(count: number, seed = 11): Feeds[] {
  return Array.from({ length: count }, (_, s) => ({
    x: float32Tensor(seededFloats(3 * 12 * 12, seed + s, -1, 1), [1, 3, 12, 12]),
  }));
}

/**
 * An audio-shaped 1-D chain, as Silero VAD's encoder: x[1,4,40] → Conv1d 4→8 (k 3, pads 1) → Relu → depthwise
 * Conv1d 8 (k 5, stride 2, dilation 2, pads 4/3) → Relu → Conv1d 8→6 (k 1, no bias) → y[1,6,20].
 */
export function conv1dChainModel(): ModelProto {
  const conv1d = (inputs: string[], out: string, name: string, attrs: AttributeProto[]) =>
    makeNode('Conv', inputs, [out], name, attrs);
  return smallModel({
    opset: 13,
    inputs: [floatIO('x', [1, 4, 40])],
    outputs: [floatIO('y', [1, 6, 20])],
    initializers: [
      weights('w1', [8, 4, 3], 21, 20),
      weights('b1', [8], 22),
      weights('w2', [8, 1, 5], 23, 0.05),
      weights('b2', [8], 24),
      weights('w3', [6, 8, 1], 25),
    ],
    nodes: [
      conv1d(['x', 'w1', 'b1'], 'c1', 'conv1d_1', [ints('kernel_shape', [3]), ints('pads', [1, 1])]),
      makeNode('Relu', ['c1'], ['r1'], 'relu1'),
      conv1d(['r1', 'w2', 'b2'], 'c2', 'dw1d_2', [
        intAttribute('group', 8),
        ints('kernel_shape', [5]),
        ints('strides', [2]),
        ints('dilations', [2]),
        ints('pads', [4, 3]),
      ]),
      makeNode('Relu', ['c2'], ['r2'], 'relu2'),
      conv1d(['r2', 'w3'], 'y', 'conv1d_3', [ints('kernel_shape', [1])]),
    ],
  });
}

/** `count` seeded inputs for conv1dChainModel, values in [−1, 1). */
export function conv1dChainFeeds(count: number, seed = 31): Feeds[] {
  return Array.from({ length: count }, (_, s) => ({
    x: float32Tensor(seededFloats(4 * 40, seed + s, -1, 1), [1, 4, 40]),
  }));
}
