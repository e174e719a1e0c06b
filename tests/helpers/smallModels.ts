/**
 * One-op and few-op models built in code, for tests that pin a single rule: a float input of a given
 * shape, some nodes, weights, an opset. `compareRuns` runs two models on the same seeded input in
 * onnxruntime-node, which is how each opset adapter is shown to keep the op's results.
 */
import {
  DataType,
  encode,
  intAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
  type ModelProto,
  type NodeProto,
  type TensorProto,
  type ValueInfoProto,
} from '../../src/core/onnx/index.ts';
import { float32Tensor, type Feeds } from '../../src/cli/runtime/ortNode.ts';
import { seededFloats } from './fixtures.ts';
import { compareOutputs, runModel, type OutputDiff } from './runModels.ts';

export interface SmallModel {
  nodes: NodeProto[];
  inputs: ValueInfoProto[];
  outputs: ValueInfoProto[];
  initializers?: TensorProto[];
  valueInfo?: ValueInfoProto[];
  opset: number;
  ir?: number;
}

/** A model from the parts; IR version defaults to the lowest one the opset allows ONNX Runtime to load. */
export function smallModel(m: SmallModel): ModelProto {
  const graph = makeGraph({
    name: 'small',
    node: m.nodes,
    input: m.inputs,
    output: m.outputs,
    initializer: m.initializers ?? [],
    value_info: m.valueInfo ?? [],
  });
  return makeModel(graph, { '': m.opset }, m.ir ?? (m.opset >= 13 ? 7 : m.opset >= 11 ? 6 : 4));
}

/** A float32 graph input or output; `shape` undefined leaves the shape unstated. */
export const floatIO = (name: string, shape?: (number | string)[]) => makeValueInfo(name, DataType.FLOAT, shape);

export const f32 = (name: string, dims: number[], values: number[]) =>
  makeTensor(name, DataType.FLOAT, dims, Float32Array.from(values));

/** Seeded inputs in [lo, hi) for the float inputs of `model`, shaped as declared. */
export function feedsFor(model: ModelProto, seed = 5, lo = -2, hi = 2): Feeds {
  return Object.fromEntries(
    model.graph!.input.map((v, k) => {
      const dims = (v.type?.tensor_type?.shape?.dim ?? []).map((d) => Number(d.dim_value ?? 1));
      const count = dims.reduce((a, b) => a * b, 1);
      return [v.name ?? '', float32Tensor(seededFloats(count, seed + k, lo, hi), dims)];
    }),
  );
}

/** Both models' outputs on the same seeded input, compared output by output. */
export async function compareRuns(a: ModelProto, b: ModelProto, feeds: Feeds = feedsFor(a)): Promise<OutputDiff[]> {
  return compareOutputs(await runModel(encode(a), feeds), await runModel(encode(b), feeds));
}

/** The model's outputs on `feeds`. */
export async function outputsOf(model: ModelProto, feeds: Feeds) {
  return runModel(encode(model), feeds);
}

/**
 * A wake-word-shaped classifier (openWakeWord's, shipped in npm packages: embeddings → Gemm → Sigmoid): x [1, 6, 8]
 * → Flatten → Gemm → Relu → Gemm → Sigmoid → one score a sample, [1, 1], which has no cosine. `withHidden` also
 * outputs the hidden Relu [1, 16], as Silero VAD outputs its state beside its speech probability.
 */
export function scoreModel(withHidden = false): ModelProto {
  return smallModel({
    nodes: [
      makeNode('Flatten', ['x'], ['f']),
      makeNode('Gemm', ['f', 'w1', 'b1'], ['g1'], 'gemm1', [intAttribute('transB', 1)]),
      makeNode('Relu', ['g1'], ['r']),
      makeNode('Gemm', ['r', 'w2', 'b2'], ['g2'], 'gemm2', [intAttribute('transB', 1)]),
      makeNode('Sigmoid', ['g2'], ['score']),
    ],
    inputs: [floatIO('x', [1, 6, 8])],
    outputs: [floatIO('score', [1, 1]), ...(withHidden ? [floatIO('r', [1, 16])] : [])],
    initializers: [
      makeTensor('w1', DataType.FLOAT, [16, 48], seededFloats(16 * 48, 3, -0.3, 0.3)),
      makeTensor('b1', DataType.FLOAT, [16], seededFloats(16, 4, -0.1, 0.1)),
      makeTensor('w2', DataType.FLOAT, [1, 16], seededFloats(16, 5, -0.5, 0.5)),
      makeTensor('b2', DataType.FLOAT, [1], Float32Array.of(0.2)),
    ],
    opset: 13,
  });
}
