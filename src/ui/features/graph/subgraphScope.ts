/**
 * Opening a control-flow node's subgraphs, as Netron does: the graph view shows one scope at a time, the main graph
 * or a body (If's then/else branch, Loop's or Scan's body, at any depth), reached by a path of (node id, attribute)
 * steps. The body is drawn with the same view model and layout as the main graph; a body reads tensors of the
 * enclosing scopes by name, which are drawn as the body's inputs would be (no producer in the body).
 */
import { buildGraphIndex } from '../../../core/onnx/graphIndex.ts';
import type { GraphProto, NodeId } from '../../../core/onnx/model.ts';
import { layeredLayout, type LayoutResult } from '../../../core/graph/layeredLayout.ts';
import { buildGraphView, layoutInputOf, type GraphView, type GraphViewOptions } from './viewModel.ts';

/** One step into a subgraph: the node (by its id in the scope above) and the attribute holding the graph. */
export interface ScopeStep {
  readonly nodeId: string;
  readonly attribute: string;
}

/** The graph at the end of `path` from `main`, or null where a step names nothing (the model changed). */
export function graphAt(main: GraphProto, path: readonly ScopeStep[]): GraphProto | null {
  let graph = main;
  for (const step of path) {
    const index = buildGraphIndex(graph);
    const i = index.indexOfId.get(step.nodeId as NodeId);
    const sub = i === undefined ? undefined : index.nodes[i].attribute.find((a) => a.name === step.attribute)?.g;
    if (!sub) return null;
    graph = sub;
  }
  return graph;
}

/** The subgraph attributes of a node: what the inspector offers to open. */
export function subgraphAttributes(node: {
  attribute: readonly { name?: string; g?: GraphProto }[];
}): { name: string; nodes: number }[] {
  return node.attribute.filter((a) => a.g).map((a) => ({ name: a.name ?? '', nodes: a.g!.node.length }));
}

/** A body's view and layout (laid out here: bodies are drawn one at a time). */
export function scopeView(graph: GraphProto, options: GraphViewOptions): { view: GraphView; layout: LayoutResult } {
  const view = buildGraphView(buildGraphIndex(graph), options);
  return { view, layout: layeredLayout(layoutInputOf(view)) };
}
