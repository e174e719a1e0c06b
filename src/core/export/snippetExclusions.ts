/**
 * A configuration's exclusions as the node names a Python snippet passes to Quark or ONNX Runtime.
 *
 * Those tools match nodes by name, and real models have unnamed nodes (UltraFace names none) or repeated
 * names. The snippets therefore name every node by the studio's stable id first (the rule of
 * core/onnx/nodeIds.ts, restated in Python by `NAME_NODES_FUNCTION`), which is also the name the studio's
 * own quantized model gives an unnamed node (quantize/qdqWriter.ts): the snippet, the graph and the
 * written model name the same nodes. (A node the studio's preparation folds away, such as a
 * BatchNormalization merged into its Conv, exists only in the float model — which is what the snippet
 * quantizes, so the tool still finds it.) Resolution is core/exclude's, so an exclusion that names
 * nothing throws the same ExclusionError here as in the quantizer. A node inside an If/Loop/Scan body (named by its
 * scoped id, as the per-layer table shows it) is passed by its name in the body.
 */
import { resolveExclusions, resolveNodeRefs, type ExclusionSpec } from '../exclude/index.ts';
import type { GraphIndex } from '../onnx/graphIndex.ts';
import { bodyNodeIds } from '../onnx/scopes.ts';

export interface SnippetExclusions {
  /** Quark subgraphs_to_exclude, each end named by stable id. */
  subgraphs: { starts: string[]; ends: string[] }[];
  /** Nodes excluded one by one (node entries, and op-type entries expanded to their nodes), by stable id. */
  nodes: string[];
  /** Every excluded node, subgraphs included, by stable id in topological order (ONNX Runtime has no subgraph option). */
  allNodes: string[];
  /** Some node has no name or a repeated one: the snippet must name the nodes before quantizing. */
  needsNaming: boolean;
}

/** Resolves the exclusions against the model; throws ExclusionError as the quantizer would. */
export function snippetExclusions(index: GraphIndex, spec: ExclusionSpec): SnippetExclusions {
  const all = resolveExclusions(index, spec);
  const idsOf = (refs: readonly string[], what: string) =>
    [...new Set(resolveNodeRefs(index, refs, what).flat())].map((i) => index.ids[i]);
  const single = new Set<number>();
  const inBodies = new Set(all.bodyNodes);
  resolveNodeRefs(
    index,
    (spec.nodesToExclude ?? []).filter((r) => !inBodies.has(r)),
    'nodes_to_exclude',
  )
    .flat()
    .forEach((i) => single.add(i));
  for (const rule of all.rules)
    if (rule.rule.startsWith('op types ')) rule.ids.forEach((id) => single.add(index.indexOfId.get(id)!));
  const nodes = Array.from(index.order)
    .filter((i) => single.has(i))
    .map((i) => index.ids[i] as string);
  const subgraphs = (spec.subgraphsToExclude ?? []).map((s, k) => ({
    starts: idsOf(s.starts, `subgraphs_to_exclude[${k}].starts`),
    ends: idsOf(s.ends, `subgraphs_to_exclude[${k}].ends`),
  }));
  const needsNaming = index.nodes.some((n, i) => n.name !== index.ids[i]);
  // A body node is named as it is in its body: the tools match node names in subgraphs too.
  const local = all.bodyNodes.length > 0 ? bodyNodeIds(index.graph) : new Map<string, string>();
  const bodyNames = all.bodyNodes.map((id) => local.get(id)!);
  return { subgraphs, nodes: [...nodes, ...bodyNames], allNodes: [...all.ids, ...bodyNames], needsNaming };
}

/** Python name of the function below. */
export const NAME_NODES = 'name_nodes_like_quant_studio';

/** The stable-id rule of core/onnx/nodeIds.ts in Python: a unique name stays, others become <OpType>_<position>. */
export const NAME_NODES_FUNCTION = `def ${NAME_NODES}(model):
    """Names the nodes as Quant Studio's stable ids: a name used once stays, others become <OpType>_<position>."""
    nodes = model.graph.node
    uses = {}
    for node in nodes:
        if node.name:
            uses[node.name] = uses.get(node.name, 0) + 1
    taken = {name for name, count in uses.items() if count == 1}
    for position, node in enumerate(nodes):
        if node.name and uses[node.name] == 1:
            continue
        base = f"{node.op_type or 'Node'}_{position}"
        name, k = base, 2
        while name in taken:
            name, k = f"{base}_{k}", k + 1
        taken.add(name)
        node.name = name
`;
