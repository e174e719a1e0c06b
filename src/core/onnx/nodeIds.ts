/**
 * Stable node ids. Real models have unnamed nodes (UltraFace names none of its 242) and sometimes
 * repeated names, yet the graph view, exclusions, the CLI and reports must all point at the same node.
 *
 * Rule: a node's id is its name when that name is non-empty and unique in its graph; otherwise
 * `<OpType>_<position>` with the node's position in the file (PyTorch's own naming pattern), made
 * unique with a `_<k>` suffix if it collides with a real name. The same file always gives the same ids.
 */
import type { NodeId, NodeProto } from './model.ts';

/** One id per node, in the order given. */
export function assignNodeIds(nodes: readonly NodeProto[]): NodeId[] {
  const nameCount = new Map<string, number>();
  for (const n of nodes) if (n.name) nameCount.set(n.name, (nameCount.get(n.name) ?? 0) + 1);
  const taken = new Set<string>();
  for (const [name, count] of nameCount) if (count === 1) taken.add(name);
  return nodes.map((n, i) => {
    if (n.name && nameCount.get(n.name) === 1) return n.name as NodeId;
    const base = `${n.op_type || 'Node'}_${i}`;
    let id = base;
    for (let k = 2; taken.has(id); k++) id = `${base}_${k}`;
    taken.add(id);
    return id as NodeId;
  });
}
