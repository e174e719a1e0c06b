/**
 * What the graph highlights, resolved by the core (src/core/exclude) on the main thread, as the
 * architecture allows for cheap pure helpers: the subgraph the current picks resolve to (before the
 * user commits it), and the nodes each entry of the exclusion list stands for. The same resolution
 * the quantizer and the command line run, so what is shaded is what stays float.
 */
import { resolveExclusions, resolveSubgraph } from '../../../core/exclude/index.ts';
import type { GraphIndex } from '../../../core/onnx/graphIndex.ts';
import type { NodeId } from '../../../core/onnx/model.ts';
import { bodyNodePath } from './subgraphScope.ts';
import type { ExclusionEntry } from '../../store/exclusionSlice.ts';
import { exclusionFields } from '../../../core/export/configDocument.ts';

export type PickPreview =
  | { kind: 'empty' }
  /** Starts without ends or ends without starts: say what is missing. */
  | { kind: 'incomplete'; message: string }
  | { kind: 'subgraph'; nodes: number[] }
  /** The picks resolve to nothing (ExclusionError): the message says why; nothing can be added. */
  | { kind: 'error'; name: string; message: string };

/** The subgraph between the picked start and end nodes (Quark's semantics: every node on a path, both ends included). */
export function previewSubgraph(index: GraphIndex, starts: readonly string[], ends: readonly string[]): PickPreview {
  if (starts.length === 0 && ends.length === 0) return { kind: 'empty' };
  if (ends.length === 0)
    return { kind: 'incomplete', message: 'Now pick one or more end nodes (End mode, or Alt+click).' };
  if (starts.length === 0)
    return { kind: 'incomplete', message: 'Now pick one or more start nodes (Start mode, or Shift+click).' };
  try {
    return { kind: 'subgraph', nodes: resolveSubgraph(index, { starts, ends }) };
  } catch (e) {
    const error = e as Error;
    return { kind: 'error', name: error.name, message: error.message };
  }
}

/**
 * Nodes of one list entry (main-graph nodes by index, and the nodes inside If/Loop/Scan bodies it names by scoped id,
 * as Suggest exclusions and a pick inside a body add them), or why it names nothing in this model (an imported list
 * may not fit it).
 */
export function resolveEntry(
  index: GraphIndex,
  entry: ExclusionEntry,
): { nodes: number[]; bodyNodes: string[] } | { error: string } {
  try {
    // Both lists resolve alike (an FP16→FP32 subgraph is the same start/end subgraph).
    const asExclusion = entry.kind === 'subgraph' ? { ...entry, toFp32: false } : entry;
    const resolved = resolveExclusions(index, exclusionFields([asExclusion]));
    return { nodes: [...resolved.nodes], bodyNodes: resolved.bodyNodes };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** A body drawn in the view: the main graph's index (entries resolve there, as the quantizer resolves them) and the prefix its nodes' scoped ids carry (`holder/then_branch/`, nested). */
export interface BodyScope {
  readonly main: GraphIndex;
  readonly prefix: string;
}

/**
 * Every excluded node (flag per node index), the nodes of each entry that resolves (by entry id: the
 * hover highlight and the inspector look them up instead of resolving again), the If/Loop/Scan nodes holding the body
 * nodes an entry names (on the main graph, where those are not drawn: what hovering the entry highlights besides), and
 * the entries that resolve to nothing, with why. With `body`, `index` is that body's: the entries resolve on the main
 * graph, and a body node is excluded where an entry names its scoped id or its op type (op-type exclusions reach the
 * bodies).
 */
export function excludedNodes(
  index: GraphIndex,
  entries: readonly ExclusionEntry[],
  body: BodyScope | null = null,
): {
  excluded: Uint8Array;
  nodesOf: Map<string, number[]>;
  holdersOf: Map<string, number[]>;
  problems: Map<string, string>;
} {
  const excluded = new Uint8Array(index.nodes.length);
  const nodesOf = new Map<string, number[]>();
  const holdersOf = new Map<string, number[]>();
  const problems = new Map<string, string>();
  for (const entry of entries) {
    const r = resolveEntry(body?.main ?? index, entry);
    if ('error' in r) {
      problems.set(entry.id, r.error);
      continue;
    }
    const nodes = body ? bodyNodesOf(index, entry, r.bodyNodes, body.prefix) : r.nodes;
    nodesOf.set(entry.id, nodes);
    if (!body && r.bodyNodes.length > 0) holdersOf.set(entry.id, bodyHolders(index, r.bodyNodes));
    if (entry.kind === 'subgraph' && entry.toFp32) continue; // converted to float32, not kept float
    for (const i of nodes) excluded[i] = 1;
  }
  return { excluded, nodesOf, holdersOf, problems };
}

/** The main graph's If/Loop/Scan nodes whose bodies (at any depth) hold a node of these scoped ids (`holder/attribute/…`). */
function bodyHolders(main: GraphIndex, scopedIds: readonly string[]): number[] {
  const holders = new Set<number>();
  for (const id of scopedIds) {
    const holder = bodyNodePath(main.graph, id)?.path[0]?.nodeId;
    const i = holder === undefined ? undefined : main.indexOfId.get(holder as NodeId);
    if (i !== undefined) holders.add(i);
  }
  return [...holders].sort((a, b) => a - b);
}

/** The nodes of a body an entry keeps float: those its scoped ids name there, or those of its op types. */
function bodyNodesOf(body: GraphIndex, entry: ExclusionEntry, scopedIds: readonly string[], prefix: string): number[] {
  if (entry.kind === 'opTypes') {
    const ops = new Set(entry.opTypes);
    return body.nodes.flatMap((n, i) => (ops.has(n.op_type ?? '') ? [i] : []));
  }
  return scopedIds.flatMap((id) => {
    const i = id.startsWith(prefix) ? body.indexOfId.get(id.slice(prefix.length) as NodeId) : undefined;
    return i === undefined ? [] : [i];
  });
}
