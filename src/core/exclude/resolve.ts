/**
 * All of a configuration's exclusions resolved to nodes: `nodesToExclude` (ids, names, patterns; a node inside a
 * control-flow body by its scoped id),
 * `opTypesToExclude`, and `subgraphsToExclude`. The quantizer, the command line and the graph view
 * all call this, so the nodes a user sees highlighted are the nodes that stay float.
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import type { NodeId } from '../onnx/model.ts';
import { resolveNodeRefs, resolveOpTypes } from './nodeRefs.ts';
import { resolveSubgraph, type SubgraphSpec } from './subgraph.ts';
import { bodyNodeIds } from '../onnx/scopes.ts';

export interface ExclusionSpec {
  nodesToExclude?: readonly string[];
  opTypesToExclude?: readonly string[];
  subgraphsToExclude?: readonly SubgraphSpec[];
}

export interface ResolvedExclusions {
  /** Every excluded node, by index into the graph index's nodes. */
  nodes: Set<number>;
  /** The same as stable ids, in topological order. */
  ids: NodeId[];
  /** What each rule selected, for reports and the UI's list. */
  rules: { rule: string; ids: NodeId[] }[];
  /**
   * Nodes inside If/Loop/Scan bodies that `nodesToExclude` names by their scoped id (`holder/then_branch/Conv_3`,
   * as the per-layer table shows them): the quantizer keeps them float where it enters the bodies.
   */
  bodyNodes: string[];
}

/** How a subgraph rule is named in the report's exclusions and its float nodes' reasons ("excluded (subgraph A → B)"). */
export function subgraphRule(sub: { readonly starts: readonly string[]; readonly ends: readonly string[] }): string {
  return `subgraph ${sub.starts.join(',')} → ${sub.ends.join(',')}`;
}

/** The same of one nodes_to_exclude entry. */
export function nodeRule(ref: string): string {
  return `node ${ref}`;
}

/** Resolves every exclusion rule; throws ExclusionError for one that names nothing or does not connect. */
export function resolveExclusions(index: GraphIndex, spec: ExclusionSpec): ResolvedExclusions {
  const nodes = new Set<number>();
  const rules: ResolvedExclusions['rules'] = [];
  const toIds = (list: number[]) => list.map((i) => index.ids[i]);
  const all = spec.nodesToExclude ?? [];
  // A body node's scoped id (only where no main-graph node is so named) is kept for the bodies' writer.
  const inBodies = all.some((r) => r.includes('/') && !index.indexOfId.has(r as NodeId))
    ? bodyNodeIds(index.graph)
    : new Map<string, string>();
  const bodyNodes = all.filter((r) => inBodies.has(r) && !index.indexOfId.has(r as NodeId));
  const refs = all.filter((r) => !bodyNodes.includes(r));
  resolveNodeRefs(index, refs, 'nodes_to_exclude').forEach((found, k) => {
    found.forEach((i) => nodes.add(i));
    rules.push({ rule: nodeRule(refs[k]), ids: toIds(found) });
  });
  if (spec.opTypesToExclude?.length) {
    const found = resolveOpTypes(index, spec.opTypesToExclude, 'op_types_to_exclude');
    found.forEach((i) => nodes.add(i));
    rules.push({ rule: `op types ${spec.opTypesToExclude.join(', ')}`, ids: toIds(found) });
  }
  (spec.subgraphsToExclude ?? []).forEach((sub, k) => {
    const found = resolveSubgraph(index, sub, `subgraphs_to_exclude[${k}]`);
    found.forEach((i) => nodes.add(i));
    rules.push({ rule: subgraphRule(sub), ids: toIds(found) });
  });
  const ids = Array.from(index.order)
    .filter((i) => nodes.has(i))
    .map((i) => index.ids[i]);
  return { nodes, ids, rules, bodyNodes };
}
