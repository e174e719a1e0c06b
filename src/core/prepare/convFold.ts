/**
 * The rewrite both convolution folds share (BatchNormalization, foldBatchNorm.ts; Mul/Add by constants,
 * foldConvAffine.ts): each planned fold replaces its convolution by a copy reading the folded weight and bias
 * and writing the output of the last node it absorbs; the absorbed nodes go, initializers no node reads any
 * more are dropped, and the origin records the copy as the convolution and the absorbed nodes as absorbed into
 * it. Weights shared with other nodes stay in place and the folded ones get new names.
 */
import type { ModelProto, NodeProto, TensorProto, ValueInfoProto } from '../onnx/index.ts';
import { DataType, forEachGraph, makeTensor, readTensorAsFloat32, subgraphsOf } from '../onnx/index.ts';
import { NameAllocator } from './names.ts';
import type { OriginRecorder } from './nodeOrigin.ts';

/** One convolution a fold rewrites. */
export interface ConvFold {
  readonly conv: NodeProto;
  /** The folded weight and bias. */
  readonly weight: TensorProto;
  readonly bias: Float32Array;
  /** The tensor the folded convolution writes: the last absorbed node's output. */
  readonly output: string;
  /** The nodes folded into the convolution, removed from the graph. */
  readonly absorbed: readonly NodeProto[];
  /** Constants the absorbed nodes read, one read each fewer. */
  readonly released: readonly string[];
  /** Tensors no node writes any more (their value_info goes). */
  readonly removedOutputs: readonly string[];
}

/** The model with every fold applied (the main graph only); the origin is recorded on `origin`. */
export function applyConvFolds(
  model: ModelProto,
  origin: OriginRecorder,
  suffix: string,
  folds: readonly ConvFold[],
): ModelProto {
  const graph = model.graph!;
  const byConv = new Map(folds.map((f) => [f.conv, f]));
  const absorbed = new Set(folds.flatMap((f) => f.absorbed));
  const tables: FoldTables = {
    names: new NameAllocator(model),
    readers: countReaders(graph.node, graph.output),
    initializers: new Map<string, TensorProto>(graph.initializer.map((t) => [t.name ?? '', t])),
  };
  const removedOutputs = new Set<string>();
  const nodes: NodeProto[] = [];
  for (const node of graph.node) {
    if (absorbed.has(node)) continue;
    const fold = byConv.get(node);
    if (!fold) {
      nodes.push(node);
      origin.keep(node);
      origin.keepSubgraphsOf(node);
      continue;
    }
    const copy = foldedConv(node, fold.weight, fold.bias, fold.output, suffix, tables);
    fold.removedOutputs.forEach((o) => removedOutputs.add(o));
    for (const c of fold.released) release(c, tables.readers);
    nodes.push(copy);
    origin.keep(copy, node);
    for (const a of fold.absorbed) origin.absorb(a, node);
  }
  // Drop initializers no node reads any more (the absorbed nodes' constants, replaced weights).
  const kept = [...tables.initializers.values()].filter((t) => (tables.readers.get(t.name ?? '') ?? 0) > 0);
  return {
    ...model,
    graph: {
      ...graph,
      node: nodes,
      initializer: kept,
      value_info: graph.value_info.filter((v) => !removedOutputs.has(v.name ?? '')),
    },
  };
}

export function floatInitializer(
  t: TensorProto | undefined,
): { tensor: TensorProto; values: Float32Array } | undefined {
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
export function foldedConv(
  conv: NodeProto,
  weight: TensorProto,
  bias: Float32Array,
  output: string,
  suffix: string,
  t: FoldTables,
): NodeProto {
  const weightName = placeTensor(
    conv.input[1],
    weight,
    `${conv.input[1]}${suffix}`,
    t.readers,
    t.initializers,
    t.names,
  );
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
