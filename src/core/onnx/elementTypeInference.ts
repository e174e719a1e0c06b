/**
 * The element type of every tensor of a graph, known before anything runs: what the file states
 * (initializers, graph inputs and outputs, value_info, Constant values) and, for every other node
 * output, what the op's schema says (outputElementTypes.ts), carried through the graph in dependency
 * order. The quantizer needs it to put Q/DQ on float tensors only: exported transformers below opset
 * 17 are full of int64 shape arithmetic (Shape → Gather → Concat → Reshape), and detection heads
 * return int64 indices next to float scores.
 *
 * A type the file does not state and no rule can tell stays unknown (undefined); so does every value
 * that is not a dense tensor (sequences, optionals, maps). Callers treat unknown as "not float".
 * Subgraphs see their enclosing graph's tensors through `outer` (ONNX forbids a subgraph to reuse an
 * outer name, so the enclosing types can simply be included). The precision code (core/halfFloat) reads
 * the same types to tell float16 from float32.
 */
import { outerScopeInputs } from './graphIndex.ts';
import type { GraphProto, ValueInfoProto } from './model.ts';
import { outputTypeRule, type OutputTypeContext } from './outputElementTypes.ts';

/** Element types by tensor name (DataType codes); a tensor whose type is unknown is absent. */
export type TensorElementTypes = ReadonlyMap<string, number>;

export interface InferenceOptions {
  /**
   * The ai.onnx opset the model imports (Dropout's mask was typed like its data before opset 7).
   * Default: the current schemas.
   */
  opset?: number;
  /** Types of the enclosing graphs' tensors, for a subgraph. */
  outer?: TensorElementTypes;
  /** Types of the graph's inputs by position, for those that state none (a Loop body's carried values). */
  inputs?: readonly (number | undefined)[];
  /** Where each subgraph's own inference goes (every depth), for callers that work inside bodies (scopes.ts). */
  scopes?: Map<GraphProto, Map<string, number>>;
}

/** A value_info's element type: a dense tensor's elem_type, null for a value that is not a tensor, undefined when unstated. */
function declaredType(v: ValueInfoProto): number | null | undefined {
  const type = v.type;
  if (!type) return undefined;
  if (type.tensor_type) return type.tensor_type.elem_type || undefined;
  return type.sequence_type || type.optional_type || type.map_type || type.sparse_tensor_type ? null : undefined;
}

/** Infers the element type of every tensor of `graph`. */
export function inferElementTypes(graph: GraphProto, options: InferenceOptions = {}): Map<string, number> {
  const opset = options.opset ?? Infinity;
  const known = new Map<string, number>(options.outer);
  /** Names stated by the file: inference never overrides them. */
  const stated = new Set<string>();

  for (const v of [...graph.input, ...graph.value_info, ...graph.output]) {
    const name = v.name ?? '';
    const t = declaredType(v);
    if (!name || t === undefined) continue;
    stated.add(name);
    if (t !== null) known.set(name, t);
  }
  graph.input.forEach((v, k) => {
    if (!v.name) return;
    const given = options.inputs?.[k];
    if (!stated.has(v.name) && given !== undefined) known.set(v.name, given);
  });
  for (const t of graph.initializer) {
    if (!t.name) continue;
    stated.add(t.name);
    if (t.data_type) known.set(t.name, t.data_type);
  }
  for (const s of graph.sparse_initializer) {
    const name = s.values?.name;
    if (!name) continue;
    stated.add(name);
    if (s.values?.data_type) known.set(name, s.values.data_type);
  }
  const producer = new Map<string, number>();
  graph.node.forEach((n, i) =>
    n.output.forEach((o) => {
      if (o) producer.set(o, i);
    }),
  );

  const subgraphTypes = new Map<GraphProto, (number | undefined)[]>();
  const subgraphOutputs = (g: GraphProto, inputs: readonly (number | undefined)[]) => {
    let out = subgraphTypes.get(g);
    if (!out) {
      const inner = inferElementTypes(g, { opset, outer: known, inputs, scopes: options.scopes });
      options.scopes?.set(g, inner);
      subgraphTypes.set(g, (out = g.output.map((v) => inner.get(v.name ?? ''))));
    }
    return out;
  };

  // Dependency order: a node is typed once every tensor it reads (its subgraphs' outer reads included)
  // is final. Graphs stored out of order take more passes; a cycle leaves its outputs unknown.
  const reads = graph.node.map((n) => [...n.input.filter((x) => x), ...outerScopeInputs(n)]);
  const done = new Uint8Array(graph.node.length);
  for (let progress = true; progress;) {
    progress = false;
    graph.node.forEach((node, i) => {
      if (done[i]) return;
      if (
        reads[i].some((t) => {
          const p = producer.get(t);
          return p !== undefined && p !== i && !done[p];
        })
      )
        return;
      done[i] = 1;
      progress = true;
      const rule = outputTypeRule(node.op_type ?? '', node.domain);
      const ctx: OutputTypeContext = {
        input: (k) => (node.input[k] ? known.get(node.input[k]) : undefined),
        opset,
        subgraphOutputs,
      };
      node.output.forEach((o, k) => {
        if (!o || stated.has(o)) return;
        const t = rule(node, k, ctx);
        if (t !== undefined && t > 0) known.set(o, t);
      });
    });
  }
  return known;
}
