/**
 * Visiting every graph and every tensor of a model, subgraphs of If/Loop/Scan included. Decoding,
 * the summary and the writers all need "every tensor", and a model keeps tensors in three places:
 * initializers, Constant nodes' attributes, and subgraphs' own initializers.
 */
import {
  isDefaultDomain,
  tensorAttribute,
  type GraphProto,
  type ModelProto,
  type NodeProto,
  type TensorProto,
} from './model.ts';

/** Calls `fn` on the graph and on every subgraph nested in its nodes' attributes, depth first. */
export function forEachGraph(graph: GraphProto, fn: (g: GraphProto, depth: number) => void, depth = 0): void {
  fn(graph, depth);
  for (const node of graph.node) {
    for (const sub of subgraphsOf(node)) forEachGraph(sub, fn, depth + 1);
  }
}

/** The graphs a node carries in its attributes (If's branches, Loop's body, …). */
export function subgraphsOf(node: NodeProto): GraphProto[] {
  const out: GraphProto[] = [];
  for (const a of node.attribute) {
    if (a.g) out.push(a.g);
    for (const g of a.graphs) out.push(g);
  }
  return out;
}

/**
 * The graph rebuilt with `fn` applied to it and to every subgraph, innermost first: `fn` receives a graph whose nodes
 * already carry their rewritten subgraphs. Nothing is modified in place.
 */
export function mapGraphs(graph: GraphProto, fn: (g: GraphProto) => GraphProto): GraphProto {
  const node = graph.node.map((n) =>
    n.attribute.some((a) => a.g || a.graphs.length > 0)
      ? {
          ...n,
          attribute: n.attribute.map((a) => ({
            ...a,
            ...(a.g ? { g: mapGraphs(a.g, fn) } : {}),
            graphs: a.graphs.map((g) => mapGraphs(g, fn)),
          })),
        }
      : n,
  );
  return fn({ ...graph, node });
}

/**
 * The graph with the tensors named in `replaced` rewritten wherever they are held: initializers and Constant nodes of
 * every scope (names are unique across a model's scopes).
 */
export function replaceTensors(graph: GraphProto, replaced: ReadonlyMap<string, TensorProto>): GraphProto {
  if (replaced.size === 0) return graph;
  return mapGraphs(graph, (g) => ({
    ...g,
    initializer: g.initializer.map((t) => replaced.get(t.name ?? '') ?? t),
    node: g.node.map((n) => {
      const t = n.op_type === 'Constant' && isDefaultDomain(n.domain) ? replaced.get(n.output[0]) : undefined;
      return t ? { ...n, attribute: [tensorAttribute('value', t)] } : n;
    }),
  }));
}

/** Calls `fn` on every dense tensor of the model: initializers and tensor attributes, in every graph. */
export function forEachTensor(
  model: ModelProto,
  fn: (t: TensorProto, where: 'initializer' | 'attribute') => void,
): void {
  if (!model.graph) return;
  forEachGraph(model.graph, (g) => {
    for (const t of g.initializer) fn(t, 'initializer');
    for (const s of g.sparse_initializer) {
      if (s.values) fn(s.values, 'initializer');
      if (s.indices) fn(s.indices, 'initializer');
    }
    for (const node of g.node) {
      for (const a of node.attribute) {
        if (a.t) fn(a.t, 'attribute');
        for (const t of a.tensors) fn(t, 'attribute');
      }
    }
  });
}

/** Every name used in the graph and its subgraphs (inputs, outputs, initializers, node outputs and node names): what a fresh name must avoid. */
export function namesInGraphs(graph: GraphProto, into = new Set<string>()): Set<string> {
  forEachGraph(graph, (g) => {
    for (const v of [...g.input, ...g.output]) into.add(v.name ?? '');
    for (const t of g.initializer) into.add(t.name ?? '');
    for (const n of g.node) {
      n.output.forEach((o) => into.add(o));
      if (n.name) into.add(n.name);
    }
  });
  return into;
}
