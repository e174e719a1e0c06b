/**
 * What the mixed-precision search moves out of 8 bits, as one type that the search (mixedPrecision.ts) and its
 * windows over the graph (precisionWindows.ts) both speak, so that the windows need not import the search.
 */

export type PrecisionKind = 'act16' | 'w16' | 'float';

/** One thing the search may move out of 8 bits: an activation group, a weight tensor, or a node. */
export interface PrecisionUnit {
  readonly kind: PrecisionKind;
  /** Tensors (act16: a group that shares parameters; w16: the weight) or the node's id (float). */
  readonly names: readonly string[];
  /** What it costs of its budget: the group's Q/DQ pairs, 1 weight, 1 node. */
  readonly cost: number;
}
