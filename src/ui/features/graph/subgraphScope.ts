/**
 * Opening a control-flow node's subgraphs, as Netron does: the graph view shows one scope at a time, the main graph
 * or a body (If's then/else branch, Loop's or Scan's body, at any depth), reached by a path of (node id, attribute)
 * steps. The body is drawn with the same view model and layout as the main graph; a body reads tensors of the
 * enclosing scopes by name: those computed or fed there are drawn as the body's inputs (marked "outer scope"), those
 * that are weights there as its weights.
 */
import { buildGraphIndex, weightOf } from '../../../core/onnx/graphIndex.ts';
import type { GraphProto, NodeId, TensorProto, ValueInfoProto } from '../../../core/onnx/model.ts';
import { layeredLayout, type LayoutResult } from '../../../core/graph/layeredLayout.ts';
import { buildGraphView, layoutInputOf, type GraphView, type GraphViewOptions } from './viewModel.ts';

/** One step into a subgraph: the node (by its id in the scope above) and the attribute holding the graph. */
export interface ScopeStep {
  readonly nodeId: string;
  readonly attribute: string;
}

/** The graphs from `main` down to the end of `path` (main first), or null where a step names nothing (the model changed). */
export function scopeChain(main: GraphProto, path: readonly ScopeStep[]): GraphProto[] | null {
  const chain = [main];
  for (const step of path) {
    const graph = chain[chain.length - 1];
    const index = buildGraphIndex(graph);
    const i = index.indexOfId.get(step.nodeId as NodeId);
    const sub = i === undefined ? undefined : index.nodes[i].attribute.find((a) => a.name === step.attribute)?.g;
    if (!sub) return null;
    chain.push(sub);
  }
  return chain;
}

/**
 * The body at the end of `chain` as it is drawn: the tensors it reads from enclosing scopes (by name, with no
 * producer in the body) become its inputs where they are computed or fed there, with the type the defining scope
 * gives them, and its weights where they are initializers or Constants there. `outer` names the inputs so added.
 */
export function withOuterReads(chain: readonly GraphProto[]): { graph: GraphProto; outer: Set<string> } {
  const body = chain[chain.length - 1];
  const index = buildGraphIndex(body);
  const defined = new Set<string>([...body.input.map((v) => v.name ?? ''), ...index.initializers.keys()]);
  for (const n of body.node) for (const o of n.output) defined.add(o);
  const read: string[] = [];
  for (const i of index.order)
    for (const t of index.nodeInputs[i]) if (!defined.has(t) && !read.includes(t)) read.push(t);
  const inputs: ValueInfoProto[] = [];
  const weights: TensorProto[] = [];
  const outer = new Set<string>();
  const enclosing = chain
    .slice(0, -1)
    .reverse()
    .map((g) => buildGraphIndex(g));
  for (const name of read) {
    // The innermost enclosing scope that defines the name is the one it resolves to.
    const scope = enclosing.find(
      (s) => s.initializers.has(name) || s.producer.has(name) || s.graph.input.some((v) => v.name === name),
    );
    if (!scope) continue;
    const weight = weightOf(scope, name);
    if (weight) {
      weights.push({ ...weight, name });
      continue;
    }
    const g = scope.graph;
    inputs.push(
      [...g.input, ...g.value_info, ...g.output].find((v) => v.name === name) ?? { name, metadata_props: [] },
    );
    outer.add(name);
  }
  return {
    graph: { ...body, input: [...inputs, ...body.input], initializer: [...body.initializer, ...weights] },
    outer,
  };
}
/**
 * Where a node id of the per-layer table lies when it is inside a body (`holder/then_branch/Conv_3`, as
 * core/metrics/layerwiseTensors.ts names body nodes): the scope path down to its body and its id there; null for an
 * id that names no body node (a main-graph node, or a model that changed).
 */
export function bodyNodePath(main: GraphProto, id: string): { path: ScopeStep[]; nodeId: string } | null {
  const path: ScopeStep[] = [];
  let graph = main;
  let rest = id;
  for (;;) {
    const index = buildGraphIndex(graph);
    if (path.length > 0 && index.indexOfId.has(rest as NodeId)) return { path, nodeId: rest };
    let next: { graph: GraphProto; rest: string } | null = null;
    index.nodes.forEach((node, i) => {
      for (const a of node.attribute) {
        const prefix = `${index.ids[i]}/${a.name}/`;
        if (a.g && !next && rest.startsWith(prefix)) {
          next = { graph: a.g, rest: rest.slice(prefix.length) };
          path.push({ nodeId: index.ids[i], attribute: a.name ?? '' });
        }
      }
    });
    if (!next) return null;
    ({ graph, rest } = next as { graph: GraphProto; rest: string });
  }
}

/**
 * How a body node's scoped id reads to a user: its id in the body and where the body is
 * (`then_gemm (inside if · then_branch)`, nested scopes joined by ›); the id itself where it names no body node.
 */
export function bodyNodeLabel(main: GraphProto, id: string): string {
  const found = bodyNodePath(main, id);
  return found ? `${found.nodeId} (inside ${scopeLabel(found.path)})` : id;
}

/** A scope path as the scope bar shows it: `if · then_branch › inner_if · else_branch`. */
export function scopeLabel(path: readonly ScopeStep[]): string {
  return path.map((step) => `${step.nodeId} · ${step.attribute}`).join(' › ');
}

/** The prefix the per-layer table and `nodes_to_exclude` give the nodes of the body at the end of `path`. */
export function scopePrefix(path: readonly ScopeStep[]): string {
  return path.map((step) => `${step.nodeId}/${step.attribute}/`).join('');
}

/** The subgraph attributes of a node: what the inspector offers to open. */
export function subgraphAttributes(node: {
  attribute: readonly { name?: string; g?: GraphProto }[];
}): { name: string; nodes: number }[] {
  return node.attribute.filter((a) => a.g).map((a) => ({ name: a.name ?? '', nodes: a.g!.node.length }));
}

/** A body's view and layout (laid out here: bodies are drawn one at a time), given the scopes from the main graph down to it. */
export function scopeView(
  chain: readonly GraphProto[],
  options: GraphViewOptions,
): { view: GraphView; layout: LayoutResult } {
  const { graph, outer } = withOuterReads(chain);
  const view = buildGraphView(buildGraphIndex(graph), { ...options, outerScope: outer });
  return { view, layout: layeredLayout(layoutInputOf(view)) };
}
