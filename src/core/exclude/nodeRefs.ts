/**
 * Turning what a user typed or clicked into nodes: a reference is a stable node id, a node name as
 * written in the file (several nodes may share one), or, as Quark's `nodes_to_exclude` allows, a
 * regular expression over names and ids. A reference that matches nothing is an error that names it
 * and suggests the closest ids: a silently empty exclusion is the worst outcome.
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import { nodeId } from '../onnx/model.ts';
import { ExclusionError } from './errors.ts';
import { editDistance } from '../editDistance.ts';
import { forEachGraph } from '../onnx/walk.ts';

const REGEX_HINT = /[\^$*+?()[\]{}|\\]/;

/** Node indices a reference names. Exact ids and names win over a regular-expression reading. */
export function matchNodeRef(index: GraphIndex, ref: string): number[] {
  const byId = index.indexOfId.get(nodeId(ref));
  if (byId !== undefined) return [byId];
  const byName: number[] = [];
  index.nodes.forEach((n, i) => {
    if (n.name === ref) byName.push(i);
  });
  if (byName.length > 0 || !REGEX_HINT.test(ref)) return byName;
  let pattern: RegExp;
  try {
    pattern = new RegExp(ref);
  } catch {
    return [];
  }
  const out: number[] = [];
  index.nodes.forEach((n, i) => {
    if (pattern.test(index.ids[i]) || (n.name && pattern.test(n.name))) out.push(i);
  });
  return out;
}

/** Node indices for each reference; throws ExclusionError for one that matches nothing. */
export function resolveNodeRefs(index: GraphIndex, refs: readonly string[], what: string): number[][] {
  return refs.map((ref) => {
    const found = matchNodeRef(index, ref);
    if (found.length === 0)
      throw new ExclusionError(`${what}: "${ref}" names no node of the model${suggest(index, ref)}`);
    return found;
  });
}

/** Node indices whose op type is one of the given ones; throws for an op type the model does not have. */
export function resolveOpTypes(index: GraphIndex, opTypes: readonly string[], what: string): number[] {
  // Op types inside If/Loop/Scan bodies count too: the quantizer applies the list there (quantizeSubgraphs.ts).
  const present = new Set<string>();
  forEachGraph(index.graph, (g) => g.node.forEach((n) => present.add(n.op_type ?? '')));
  for (const t of opTypes) {
    if (!present.has(t)) {
      const list = [...present].sort().join(', ');
      throw new ExclusionError(`${what}: the model has no ${t} node (its op types: ${list})`);
    }
  }
  const wanted = new Set(opTypes);
  const out: number[] = [];
  index.nodes.forEach((n, i) => {
    if (wanted.has(n.op_type ?? '')) out.push(i);
  });
  return out;
}

function suggest(index: GraphIndex, ref: string): string {
  const scored = index.ids
    .map((id) => ({ id, d: editDistance(ref.toLowerCase(), id.toLowerCase()) }))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .filter((s) => s.d <= Math.max(3, ref.length / 2));
  return scored.length ? ` (did you mean ${scored.map((s) => `"${s.id}"`).join(', ')}?)` : '';
}
