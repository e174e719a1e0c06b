/** Exclusions: which nodes stay float. Public face of src/core/exclude. */
export { ExclusionError } from './errors.ts';
export { matchNodeRef, resolveNodeRefs, resolveOpTypes } from './nodeRefs.ts';
export { reach, resolveSubgraph, type SubgraphSpec } from './subgraph.ts';
export { nodeRule, resolveExclusions, subgraphRule, type ExclusionSpec, type ResolvedExclusions } from './resolve.ts';
