/**
 * What is known about a tensor without running the model: its rank, its element type and, for weights,
 * its value. Some opset adapters need these (a Softmax can stay as it is only when its axis is the last
 * one; a Pad value must become a tensor of the data's type), and when a fact is unknown they take the
 * rewrite that is correct for every input, or refuse. So this module answers only from what the file
 * states (graph inputs, outputs, value_info, initializers, Constant nodes) plus element types carried
 * through ops whose output type is their first input's; it never guesses.
 *
 * Lookups walk the scope chain outwards: a subgraph sees its enclosing graphs' tensors.
 */
import type { GraphProto, NodeProto, TensorProto, ValueInfoProto } from '../onnx/index.ts';
import { DataType, forEachGraph, isDefaultDomain, subgraphsOf } from '../onnx/index.ts';
import { constantValue } from './attributes.ts';

/** Ops whose first output has the element type of their first input (the common float-path ops). */
const TYPE_OF_FIRST_INPUT = new Set([
  'Abs', 'Add', 'AveragePool', 'BatchNormalization', 'Ceil', 'Clip', 'Concat', 'Conv', 'ConvTranspose', 'Div',
  'Dropout', 'Elu', 'Erf', 'Exp', 'Expand', 'Flatten', 'Floor', 'Gather', 'GatherElements', 'Gemm',
  'GlobalAveragePool', 'GlobalMaxPool', 'HardSigmoid', 'HardSwish', 'Identity', 'InstanceNormalization',
  'LayerNormalization', 'LeakyRelu', 'Log', 'LogSoftmax', 'LRN', 'MatMul', 'Max', 'MaxPool', 'Mean', 'Min',
  'Mul', 'Neg', 'Pad', 'Pow', 'PRelu', 'Reciprocal', 'ReduceMax', 'ReduceMean', 'ReduceMin', 'ReduceSum',
  'Relu', 'Reshape', 'Resize', 'Selu', 'Sigmoid', 'Slice', 'Softmax', 'Softplus', 'Split', 'Sqrt', 'Squeeze',
  'Sub', 'Sum', 'Tanh', 'Tile', 'Transpose', 'Unsqueeze', 'Upsample',
]);

/** Facts about the tensors of one graph, falling back to the enclosing graph's facts. */
export class ValueFacts {
  private readonly declared = new Map<string, ValueInfoProto>();
  private readonly weights = new Map<string, TensorProto>();
  private readonly producer = new Map<string, NodeProto>();
  private readonly readCount = new Map<string, number>();

  constructor(graph: GraphProto, private readonly parent?: ValueFacts) {
    for (const v of [...graph.input, ...graph.output, ...graph.value_info]) if (v.name) this.declared.set(v.name, v);
    const read = (t: string) => {
      if (t) this.readCount.set(t, (this.readCount.get(t) ?? 0) + 1);
    };
    for (const n of graph.node) {
      n.input.forEach(read);
      for (const g of subgraphsOf(n)) forEachGraph(g, (sub) => sub.node.forEach((m) => m.input.forEach(read)));
    }
    graph.output.forEach((v) => read(v.name ?? ''));
    for (const t of graph.initializer) if (t.name) this.weights.set(t.name, t);
    for (const n of graph.node) {
      for (const o of n.output) if (o) this.producer.set(o, n);
      if (n.op_type === 'Constant' && isDefaultDomain(n.domain) && n.output[0]) {
        const t = constantValue(n);
        if (t) this.weights.set(n.output[0], t);
      }
    }
  }

  /** The value of a weight (initializer or Constant output) visible from this graph. */
  constant(name: string): TensorProto | undefined {
    return this.weights.get(name) ?? this.parent?.constant(name);
  }

  /** How many node inputs (subgraphs' outer-scope reads included) and graph outputs of this graph name `name`. */
  readers(name: string): number {
    return this.readCount.get(name) ?? 0;
  }

  /** The tensor's rank when the file states it. */
  rank(name: string): number | undefined {
    const t = this.weights.get(name);
    if (t) return t.dims.length;
    const dims = this.declared.get(name)?.type?.tensor_type?.shape?.dim;
    if (dims) return dims.length;
    if (this.producer.has(name) || this.declared.has(name)) return undefined;
    return this.parent?.rank(name);
  }

  /** The tensor's element type (a DataType code) when the file states it or it follows from its producer. */
  elemType(name: string, depth = 0): number | undefined {
    const t = this.weights.get(name);
    if (t) return t.data_type;
    const declared = this.declared.get(name)?.type?.tensor_type?.elem_type;
    if (declared) return declared;
    const p = this.producer.get(name);
    if (p) {
      if (depth > 64 || !isDefaultDomain(p.domain)) return undefined;
      if (p.op_type === 'Cast') {
        const to = p.attribute.find((a) => a.name === 'to')?.i;
        return typeof to === 'number' && to > 0 ? to : undefined;
      }
      if (p.op_type === 'Shape' || p.op_type === 'Size') return DataType.INT64;
      if (TYPE_OF_FIRST_INPUT.has(p.op_type ?? '') && p.output[0] === name && p.input[0]) {
        return this.elemType(p.input[0], depth + 1);
      }
      return undefined;
    }
    if (this.declared.has(name)) return undefined;
    return this.parent?.elemType(name, depth);
  }
}
