/**
 * Where each node of a prepared model came from. Preparation (folding, opset upgrade) adds, removes and
 * rewrites nodes, and node ids are positional for unnamed nodes (see onnx/nodeIds.ts): without a record of
 * origins, an exclusion written against the user's model ("Conv_12") would silently point at another node
 * of the prepared one. Every transform of src/core/prepare returns this record alongside its new model.
 *
 * The record, for a transform from model A to model B:
 * - `source`: every node of B (every graph, subgraphs included) → the node of A it comes from. A node the
 *   transform left alone is the same object in both models and maps to itself; an edited node is a copy
 *   that maps to the original; nodes created while rewriting one node (Flatten/Reshape around an upgraded
 *   Softmax) map to that node.
 * - `helpers`: the nodes of B that were created around another node and are not its continuation (the
 *   Flatten and Reshape above). Exactly one node per source is not a helper: the node that carries the
 *   source's computation, which takes over its id.
 * - `absorbed`: nodes of A that no longer exist in B, each with the node of A it was merged into
 *   (BatchNormalization → its Conv) or null when it became data (Constant → initializer).
 *
 * Records compose (`composeOrigins`), so a chain of transforms still maps the final model to the user's.
 * This module must not know about any particular transform.
 */
import type { GraphProto, ModelProto, NodeId, NodeProto } from '../onnx/index.ts';
import { forEachGraph, subgraphsOf } from '../onnx/index.ts';

/** Provenance of the nodes of a transformed model; see the module comment. */
export interface NodeOrigin {
  readonly source: ReadonlyMap<NodeProto, NodeProto>;
  readonly helpers: ReadonlySet<NodeProto>;
  readonly absorbed: ReadonlyMap<NodeProto, NodeProto | null>;
}

/** Collects a NodeOrigin while a transform builds its new graphs. */
export class OriginRecorder {
  readonly source = new Map<NodeProto, NodeProto>();
  readonly helpers = new Set<NodeProto>();
  readonly absorbed = new Map<NodeProto, NodeProto | null>();

  /** `node` of the new model continues `from` (itself when unchanged). */
  keep(node: NodeProto, from: NodeProto = node): void {
    this.source.set(node, from);
  }

  /** `node` was created around `from` while rewriting it. */
  helper(node: NodeProto, from: NodeProto): void {
    this.source.set(node, from);
    this.helpers.add(node);
  }

  /** `node` of the old model is gone, merged into `into` (null: it became data). */
  absorb(node: NodeProto, into: NodeProto | null): void {
    this.absorbed.set(node, into);
  }

  /** Every node of `graph` and of its subgraphs is unchanged. */
  keepGraph(graph: GraphProto): void {
    forEachGraph(graph, (g) => g.node.forEach((n) => this.source.set(n, n)));
  }

  /** The subgraph nodes of `node` are unchanged (the node itself is recorded by the caller). */
  keepSubgraphsOf(node: NodeProto): void {
    for (const g of subgraphsOf(node)) this.keepGraph(g);
  }

  finish(): NodeOrigin {
    return { source: this.source, helpers: this.helpers, absorbed: this.absorbed };
  }
}

/** The record of a transform that changed no node of `model`. */
export function identityOrigin(model: ModelProto): NodeOrigin {
  const recorder = new OriginRecorder();
  if (model.graph) recorder.keepGraph(model.graph);
  return recorder.finish();
}

/** The origin record of `first` followed by `second` (A → B, then B → C gives A → C). */
export function composeOrigins(first: NodeOrigin, second: NodeOrigin): NodeOrigin {
  const source = new Map<NodeProto, NodeProto>();
  const helpers = new Set<NodeProto>();
  const primaryOf = new Set<NodeProto>();
  for (const [c, b] of second.source) {
    const a = first.source.get(b) ?? b;
    source.set(c, a);
    const isHelper = second.helpers.has(c) || first.helpers.has(b);
    if (isHelper) helpers.add(c);
    else primaryOf.add(a);
  }
  const absorbed = new Map<NodeProto, NodeProto | null>(first.absorbed);
  for (const [b, into] of second.absorbed) {
    const a = first.source.get(b) ?? b;
    // A helper of B vanishing says nothing about its source, which lives on in its primary node.
    if (first.helpers.has(b) || primaryOf.has(a)) continue;
    absorbed.set(a, into === null ? null : (first.source.get(into) ?? into));
  }
  return { source, helpers, absorbed };
}

/**
 * Ids for the nodes of a prepared graph that keep the ids of the original graph: a node continuing an
 * original node takes that node's id; a helper node gets `<original id>/<OpType>` (with `_2`, `_3`… when
 * taken); a node with no known source (none is expected) gets `<OpType>_new_<position>`.
 */
export function carryNodeIds(
  originalNodes: readonly NodeProto[],
  originalIds: readonly NodeId[],
  preparedNodes: readonly NodeProto[],
  origin: NodeOrigin,
): NodeId[] {
  const idOf = new Map<NodeProto, NodeId>();
  originalNodes.forEach((n, i) => idOf.set(n, originalIds[i]));
  const taken = new Set<string>();
  const ids: (string | undefined)[] = preparedNodes.map((n) => {
    if (origin.helpers.has(n)) return undefined;
    const from = origin.source.get(n);
    const id = from ? idOf.get(from) : undefined;
    if (id === undefined || taken.has(id)) return undefined;
    taken.add(id);
    return id;
  });
  return preparedNodes.map((n, i) => {
    const known = ids[i];
    if (known !== undefined) return known as NodeId;
    const from = origin.source.get(n);
    const base =
      from && idOf.has(from) ? `${idOf.get(from)}/${n.op_type ?? 'Node'}` : `${n.op_type ?? 'Node'}_new_${i}`;
    let id = base;
    for (let k = 2; taken.has(id); k++) id = `${base}_${k}`;
    taken.add(id);
    return id as NodeId;
  });
}
