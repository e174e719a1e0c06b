/**
 * Quark's `subgraphs_to_exclude`: a subgraph given by its start nodes and end nodes is every node on
 * a path from a start to an end, starts and ends included; that is, the nodes reachable from a start
 * that can also reach an end. Resolved on the float model as loaded, before any graph preparation,
 * as Quark resolves it (quark/onnx quantize_static: match_exclude_subgraphs on the input model).
 *
 * Traversal runs on the graph index's flat adjacency arrays: a few milliseconds at 20,000 nodes.
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import { ExclusionError } from './errors.ts';
import { resolveNodeRefs } from './nodeRefs.ts';

export interface SubgraphSpec {
  readonly starts: readonly string[];
  readonly ends: readonly string[];
}

/** Marks every node reachable from `from` along the CSR adjacency (start, targets). */
export function reach(count: number, from: readonly number[], start: Int32Array, targets: Int32Array): Uint8Array {
  const seen = new Uint8Array(count);
  const stack = [...from];
  for (const v of from) seen[v] = 1;
  while (stack.length > 0) {
    const v = stack.pop()!;
    for (let k = start[v]; k < start[v + 1]; k++) {
      const w = targets[k];
      if (!seen[w]) {
        seen[w] = 1;
        stack.push(w);
      }
    }
  }
  return seen;
}

/** Node indices of the subgraph, in topological order. Throws ExclusionError when it does not connect. */
export function resolveSubgraph(index: GraphIndex, spec: SubgraphSpec, label = 'subgraph'): number[] {
  if (spec.starts.length === 0 || spec.ends.length === 0) {
    throw new ExclusionError(`${label}: give at least one start node and one end node`);
  }
  const starts = resolveNodeRefs(index, spec.starts, `${label} start`).flat();
  const endGroups = resolveNodeRefs(index, spec.ends, `${label} end`);
  const n = index.nodes.length;
  const forward = reach(n, starts, index.succStart, index.succ);
  endGroups.forEach((group, k) => {
    if (!group.some((e) => forward[e])) {
      throw new ExclusionError(
        `${label}: end node "${spec.ends[k]}" cannot be reached from the start node(s) ${spec.starts.map((s) => `"${s}"`).join(', ')}`,
      );
    }
  });
  const backward = reach(n, endGroups.flat(), index.predStart, index.pred);
  const out: number[] = [];
  for (const i of index.order) if (forward[i] && backward[i]) out.push(i);
  return out;
}
