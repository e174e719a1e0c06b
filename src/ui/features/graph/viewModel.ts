/**
 * The graph view's model on the page: the core's view (core/graph/graphView.ts: boxes, edges, Q/DQ folded) and
 * what only the page asks of it: search, and the box of a node id that has none of its own.
 */
import type { NodeId } from '../../../core/onnx/model.ts';
import type { GraphView } from '../../../core/graph/graphView.ts';

export {
  buildGraphView,
  layoutInputOf,
  shapeLabel,
  shortName,
  type BoxKind,
  type DrawnView,
  type GraphView,
  type GraphViewOptions,
  type PaneView,
  type ViewBox,
  type ViewEdge,
} from '../../../core/graph/graphView.ts';

/**
 * Boxes matching a search, best first: exact id or name, then ids, names, op types and tensor names
 * (inputs and outputs) containing the text, case-insensitively. At most `limit` results.
 */
export function searchGraph(view: GraphView, query: string, limit = 200): number[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const exact: number[] = [];
  const partial: number[] = [];
  const { index } = view;
  for (let b = 0; b < view.boxes.length && exact.length + partial.length < limit * 4; b++) {
    const box = view.boxes[b];
    const node = box.node >= 0 ? index.nodes[box.node] : undefined;
    const names = [box.id, node?.name ?? '', box.title];
    if (names.some((s) => s.toLowerCase() === q)) {
      exact.push(b);
      continue;
    }
    const tensors = node ? [...node.input, ...node.output] : [box.title];
    if ([...names, ...tensors].some((s) => s && s.toLowerCase().includes(q))) partial.push(b);
  }
  return [...exact, ...partial].slice(0, limit);
}

/** The box of a node id (a folded Constant or Q/DQ shows as the first node after it that has a box). */
export function boxOfId(view: GraphView, id: string): number | undefined {
  const direct = view.boxById.get(id);
  if (direct !== undefined) return direct;
  const start = view.index.indexOfId.get(id as NodeId);
  if (start === undefined) return undefined;
  // Breadth first through folded nodes (a Q's DQ, then the DQ's reader): a few steps at most.
  const queue = [start];
  const seen = new Set(queue);
  for (let k = 0; k < queue.length && k < 64; k++) {
    for (const o of view.index.nodes[queue[k]].output) {
      for (const consumer of view.index.consumers.get(o) ?? []) {
        if (view.boxOfNode[consumer] >= 0) return view.boxOfNode[consumer];
        if (!seen.has(consumer)) {
          seen.add(consumer);
          queue.push(consumer);
        }
      }
    }
  }
  return undefined;
}
