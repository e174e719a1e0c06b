/**
 * Conv (or ConvTranspose) → BatchNormalization pairs folded into one convolution. In inference a
 * BatchNormalization is a per-channel affine map, y = (x − mean) · γ/√(var + ε) + β (BatchNormalization-15,
 * training_mode = 0), and the convolution before it is linear per output channel, so the pair is one
 * convolution with W'[c] = W[c] · s[c] and b'[c] = (b[c] − mean[c]) · s[c] + β[c], s = γ/√(var + ε).
 * Quantizing the folded weights is what runtimes execute anyway; quantizing the unfolded pair would put
 * a Q/DQ between two ops that are really one and lose accuracy.
 *
 * Folded only when the result is certain: both nodes in the default domain, the convolution's output read
 * by that BatchNormalization alone and not a graph output, the BatchNormalization in inference form (one
 * output, no training_mode, spatial absent or 1), and W, b, γ, β, mean and var float32 initializers of the
 * right sizes, none of them also a graph input (the caller could replace it at run time; before IR 4 every
 * initializer is one, which removeInitializerInputs.ts undoes first). Arithmetic runs in float64 and is
 * stored as float32, so outputs change only by float rounding. Main graph only. The convolution (a copy with new weight inputs) takes the BatchNormalization's
 * output name, so consumers and graph outputs are unchanged; the BatchNormalization is recorded as
 * absorbed into the convolution. Weights shared with other nodes are left in place and the folded ones get
 * new names; weights no node reads any more are dropped.
 */
import type { GraphIndex, ModelProto, NodeProto, TensorProto, ValueInfoProto } from '../onnx/index.ts';
import { DataType, buildGraphIndex, forEachGraph, isDefaultDomain, makeTensor, readTensorAsFloat32, subgraphsOf } from '../onnx/index.ts';
import { floatOf, intOf } from './attributes.ts';
import { NameAllocator } from './names.ts';
import { OriginRecorder, type NodeOrigin } from './nodeOrigin.ts';

export interface FoldResult {
  readonly model: ModelProto;
  readonly origin: NodeOrigin;
  /** Number of BatchNormalization nodes folded, by the op type they were folded into. */
  readonly folded: Readonly<Record<string, number>>;
}

/** BatchNormalization's default epsilon (BatchNormalization-15 schema). */
const DEFAULT_EPSILON = 1e-5;

interface Fold {
  conv: NodeProto;
  bn: NodeProto;
  weight: TensorProto;
  bias: Float32Array;
}

/** Folds every eligible Conv/ConvTranspose → BatchNormalization pair of the main graph. */
export function foldBatchNorm(model: ModelProto): FoldResult {
  const graph = model.graph;
  const origin = new OriginRecorder();
  if (!graph) return { model: { ...model }, origin: origin.finish(), folded: {} };
  const index = buildGraphIndex(graph);
  const graphOutputs = new Set(graph.output.map((v) => v.name ?? ''));
  const graphInputs = new Set(graph.input.map((v) => v.name ?? ''));

  const folds = new Map<NodeProto, Fold>();
  const bnFolded = new Set<NodeProto>();
  for (const bn of graph.node) {
    const fold = planFold(bn, index, graphOutputs, graphInputs);
    if (fold) {
      folds.set(fold.conv, fold);
      bnFolded.add(bn);
    }
  }
  if (folds.size === 0) {
    origin.keepGraph(graph);
    return { model: { ...model }, origin: origin.finish(), folded: {} };
  }

  const names = new NameAllocator(model);
  const readers = countReaders(graph.node, graph.output);
  const initializers = new Map<string, TensorProto>(graph.initializer.map((t) => [t.name ?? '', t]));
  const removedOutputs = new Set<string>();
  const nodes: NodeProto[] = [];
  const folded: Record<string, number> = {};

  for (const node of graph.node) {
    if (bnFolded.has(node)) continue;
    const fold = folds.get(node);
    if (!fold) {
      nodes.push(node);
      origin.keep(node);
      origin.keepSubgraphsOf(node);
      continue;
    }
    const { conv, bn } = fold;
    const copy = foldedConv(conv, fold.weight, fold.bias, bn.output[0], '_bn', { readers, initializers, names });
    removedOutputs.add(conv.output[0]);
    for (const t of bn.input.slice(1)) release(t, readers);
    nodes.push(copy);
    origin.keep(copy, conv);
    origin.absorb(bn, conv);
    folded[conv.op_type ?? ''] = (folded[conv.op_type ?? ''] ?? 0) + 1;
  }

  // Drop initializers no node reads any more (BatchNormalization parameters, replaced weights).
  const kept = [...initializers.values()].filter((t) => (readers.get(t.name ?? '') ?? 0) > 0);
  return {
    model: {
      ...model,
      graph: {
        ...graph,
        node: nodes,
        initializer: kept,
        value_info: graph.value_info.filter((v) => !removedOutputs.has(v.name ?? '')),
      },
    },
    origin: origin.finish(),
    folded,
  };
}

/** The fold for `bn`, or undefined when any condition of the module comment fails. */
function planFold(bn: NodeProto, index: GraphIndex, graphOutputs: Set<string>, graphInputs: Set<string>): Fold | undefined {
  if (bn.op_type !== 'BatchNormalization' || !isDefaultDomain(bn.domain)) return undefined;
  if (bn.output.slice(1).some((o) => o) || !bn.output[0] || bn.input.length !== 5) return undefined;
  if ((intOf(bn, 'training_mode') ?? 0) !== 0 || (intOf(bn, 'spatial') ?? 1) !== 1) return undefined;
  // A weight that is also a graph input can be replaced when the model runs: it is not a constant.
  const weight = (name: string) => (graphInputs.has(name) ? undefined : floatInitializer(index.initializers.get(name)));
  const x = bn.input[0];
  const p = index.producer.get(x);
  if (p === undefined) return undefined;
  const conv = index.nodes[p];
  if ((conv.op_type !== 'Conv' && conv.op_type !== 'ConvTranspose') || !isDefaultDomain(conv.domain)) return undefined;
  if (conv.output[0] !== x || graphOutputs.has(x) || (index.consumers.get(x)?.length ?? 0) !== 1) return undefined;

  const w = weight(conv.input[1]);
  if (!w || w.tensor.dims.length < 3) return undefined;
  const dims = w.tensor.dims.map(Number);
  const group = intOf(conv, 'group') ?? 1;
  const channels = conv.op_type === 'Conv' ? dims[0] : dims[1] * group;
  const params = bn.input.slice(1).map(weight);
  if (params.some((t) => !t || t.tensor.dims.length !== 1 || t.values.length !== channels)) return undefined;
  const [gamma, beta, mean, variance] = params.map((t) => t!.values);
  let b: Float32Array = new Float32Array(channels);
  if (conv.input[2]) {
    const bias = weight(conv.input[2]);
    if (!bias || bias.values.length !== channels) return undefined;
    b = bias.values;
  }

  const epsilon = floatOf(bn, 'epsilon') ?? DEFAULT_EPSILON;
  const factor = new Float64Array(channels);
  for (let c = 0; c < channels; c++) factor[c] = gamma[c] / Math.sqrt(variance[c] + epsilon);

  const weights = new Float32Array(w.values.length);
  const inner = dims.slice(2).reduce((a, d) => a * d, 1);
  if (conv.op_type === 'Conv') {
    // W is (M × C/group × k…): output channel = index along dim 0.
    const perChannel = w.values.length / channels;
    for (let i = 0; i < weights.length; i++) weights[i] = w.values[i] * factor[Math.floor(i / perChannel)];
  } else {
    // ConvTranspose W is (C × M/group × k…): output channel = group · (M/group) + index along dim 1.
    const inPerGroup = dims[0] / group;
    const outPerGroup = dims[1];
    for (let i = 0; i < weights.length; i++) {
      const j = Math.floor(i / inner) % outPerGroup;
      const ci = Math.floor(i / (inner * outPerGroup));
      weights[i] = w.values[i] * factor[Math.floor(ci / inPerGroup) * outPerGroup + j];
    }
  }
  const bias = new Float32Array(channels);
  for (let c = 0; c < channels; c++) bias[c] = (b[c] - mean[c]) * factor[c] + beta[c];
  return { conv, bn, weight: makeTensor('', DataType.FLOAT, dims, weights), bias };
}

export function floatInitializer(t: TensorProto | undefined): { tensor: TensorProto; values: Float32Array } | undefined {
  if (!t || t.data_type !== DataType.FLOAT) return undefined;
  return { tensor: t, values: readTensorAsFloat32(t) };
}

/** How many node inputs (any graph, outer-scope reads included) and graph outputs name each tensor. */
export function countReaders(nodes: readonly NodeProto[], outputs: readonly ValueInfoProto[]): Map<string, number> {
  const readers = new Map<string, number>();
  const add = (t: string) => {
    if (t) readers.set(t, (readers.get(t) ?? 0) + 1);
  };
  for (const n of nodes) {
    n.input.forEach(add);
    for (const g of subgraphsOf(n)) forEachGraph(g, (sub) => sub.node.forEach((m) => m.input.forEach(add)));
  }
  outputs.forEach((v) => add(v.name ?? ''));
  return readers;
}

export function release(name: string, readers: Map<string, number>): void {
  if (name) readers.set(name, (readers.get(name) ?? 1) - 1);
}

/** The tensors and names a fold rewrites convolutions against. */
export interface FoldTables {
  readers: Map<string, number>;
  initializers: Map<string, TensorProto>;
  names: NameAllocator;
}

/**
 * A copy of `conv` reading `weight` and `bias` (stored under the old names where it was their only reader, else
 * under new names ending in `suffix`) and writing `output`.
 */
export function foldedConv(conv: NodeProto, weight: TensorProto, bias: Float32Array, output: string, suffix: string, t: FoldTables): NodeProto {
  const weightName = placeTensor(conv.input[1], weight, `${conv.input[1]}${suffix}`, t.readers, t.initializers, t.names);
  const biasName = placeTensor(
    conv.input[2] || '',
    makeTensor('', DataType.FLOAT, [bias.length], bias),
    conv.input[2] ? `${conv.input[2]}${suffix}` : `${conv.input[1]}_bias`,
    t.readers,
    t.initializers,
    t.names,
  );
  return { ...conv, input: [conv.input[0], weightName, biasName], output: [output], attribute: [...conv.attribute] };
}

/**
 * Stores `tensor` as the new value of the initializer `name` when this node was its only reader (the name
 * stays), else under a fresh name; returns the name the node should read.
 */
function placeTensor(
  name: string,
  tensor: TensorProto,
  hint: string,
  readers: Map<string, number>,
  initializers: Map<string, TensorProto>,
  names: NameAllocator,
): string {
  if (name && readers.get(name) === 1) {
    initializers.set(name, { ...tensor, name });
    return name;
  }
  release(name, readers);
  const fresh = names.fresh(hint);
  initializers.set(fresh, { ...tensor, name: fresh });
  readers.set(fresh, 1);
  return fresh;
}
