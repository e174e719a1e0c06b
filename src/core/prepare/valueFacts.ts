/**
 * What is known about a tensor without running the model: its rank, its element type and, for weights,
 * its value. Some opset adapters need these (a Softmax can stay as it is only when its axis is the last
 * one; a Pad value must become a tensor of the data's type), and when a fact is unknown they take the
 * rewrite that is correct for every input, or refuse. So this module answers only from what the file
 * states (graph inputs, outputs, value_info, initializers, Constant nodes) plus element types the ops'
 * schemas give (core/onnx/elementTypeInference.ts, the quantizer's source of types too); it never guesses.
 *
 * Lookups walk the scope chain outwards: a subgraph sees its enclosing graphs' tensors.
 */
import type { GraphProto, NodeProto, TensorElementTypes, TensorProto, ValueInfoProto } from '../onnx/index.ts';
import { forEachGraph, inferElementTypes, isDefaultDomain, subgraphsOf } from '../onnx/index.ts';
import { constantValue } from './attributes.ts';

/** Facts about the tensors of one graph, falling back to the enclosing graph's facts. */
export class ValueFacts {
  private readonly declared = new Map<string, ValueInfoProto>();
  private readonly weights = new Map<string, TensorProto>();
  private readonly producer = new Map<string, NodeProto>();
  private readonly readCount = new Map<string, number>();
  private types: TensorElementTypes | undefined;

  /** `opset`: the ai.onnx opset the graph's nodes are written at. */
  constructor(
    private readonly graph: GraphProto,
    private readonly parent?: ValueFacts,
    private readonly opset = 1,
  ) {
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

  /** The tensor's element type (a DataType code) when the file states it or the producing op's schema gives it. */
  elemType(name: string): number | undefined {
    return this.elementTypes().get(name);
  }

  /** Element types of this graph's tensors and of the enclosing graphs' (inferred once, on first use). */
  private elementTypes(): TensorElementTypes {
    this.types ??= inferElementTypes(this.graph, { opset: this.opset, outer: this.parent?.elementTypes() });
    return this.types;
  }
}
