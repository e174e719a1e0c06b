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
  // Every name once, and the names given more than once (none, in most files): one Set operation a node.
  const names = new Set<string>();
  let repeated: Set<string> | null = null;
  for (const n of nodes) {
    if (!n.name) continue;
    const size = names.size;
    names.add(n.name);
    if (names.size === size) (repeated ??= new Set()).add(n.name);
  }
  const unique = (name: string) => names.has(name) && !repeated?.has(name);
  const made = new Set<string>();
  return nodes.map((n, i) => {
    if (n.name && !repeated?.has(n.name)) return n.name as NodeId;
    const base = `${n.op_type || 'Node'}_${i}`;
    let id = base;
    for (let k = 2; unique(id) || made.has(id); k++) id = `${base}_${k}`;
    made.add(id);
    return id as NodeId;
  });
}
