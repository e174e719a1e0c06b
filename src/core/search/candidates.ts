/**
 * What the exclusion search may try, worst first: quantized nodes ranked by their layer-wise error,
 * and the tail subgraph from a node to the model outputs.
 *
 * Two rankings, because error accumulates: by 'sqnr' (lowest SQNR of the node's output first) the
 * top is nearly always next to the outputs, where the sum of all upstream error shows; by 'drop'
 * (largest SQNR lost between the node's inputs and its output first, ../metrics/layerwiseJumps.ts)
 * the top is the node where the most error appears. Neither proves the node is the cause: a layer
that amplifies channels an earlier layer rounded away (a 1×1 convolution after a per-tensor
depthwise one) shows the drop, which is why the search measures every candidate before keeping
it. Only nodes the quantizer quantized are
 * candidates: excluding a node that is float anyway changes nothing. A tail is Quark's
 * subgraphs_to_exclude entry from the node to the producers of every model output it reaches (the
 * YOLO post-processing case). Must not evaluate anything.
 */

import type { GraphIndex } from '../onnx/graphIndex.ts';
import type { NodeId } from '../onnx/model.ts';
import { reach } from '../exclude/subgraph.ts';
import type { LayerRow } from '../metrics/layerwise.ts';
import { nodeErrors } from '../metrics/layerwiseJumps.ts';
import type { SubgraphExclusion } from '../quantize/config.ts';

export type RankBy = 'drop' | 'sqnr';

/** A quantized node and its layer-wise error, as the search ranks it. */
export interface RankedLayer {
  readonly node: NodeId;
  readonly opType: string;
  /** Lowest SQNR of the node's outputs, dB. */
  readonly sqnr: number;
  /** SQNR lost between its inputs and its outputs, dB. */
  readonly drop: number;
}

/** Ascending order with NaN last. */
const ascending = (a: number, b: number) =>
  Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : Number.isNaN(b) ? -1 : a === b ? 0 : a < b ? -1 : 1;
/** Descending order with NaN last. */
const descending = (a: number, b: number) => (Number.isNaN(a) || Number.isNaN(b) ? ascending(a, b) : ascending(b, a));

/** Quantized nodes with a compared output, worst first by `by` (ties: lower SQNR first). */
export function rankLayers(
  rows: readonly LayerRow[],
  index: GraphIndex,
  quantized: ReadonlySet<string>,
  by: RankBy = 'drop',
): RankedLayer[] {
  const errors = nodeErrors(rows, index).filter((e) => quantized.has(e.node) && e.sqnr !== Infinity);
  const ranked = errors.map(({ node, opType, sqnr, drop }) => ({ node, opType, sqnr, drop }));
  return ranked.sort((a, b) => (by === 'drop' ? descending(a.drop, b.drop) : 0) || ascending(a.sqnr, b.sqnr));
}

/** A tail subgraph and its size. */
export interface Tail {
  readonly subgraph: SubgraphExclusion;
  /** Nodes it covers (the start, the ends and everything between). */
  readonly nodes: number;
}

/** The subgraph from node `id` to the producers of the model outputs it reaches; null when it reaches none. */
export function tailSubgraph(index: GraphIndex, id: NodeId): Tail | null {
  const start = index.indexOfId.get(id);
  if (start === undefined) return null;
  const count = index.nodes.length;
  const down = reach(count, [start], index.succStart, index.succ);
  const ends: number[] = [];
  for (const o of index.outputs) {
    const p = index.producer.get(o.name ?? '');
    if (p !== undefined && down[p] && !ends.includes(p)) ends.push(p);
  }
  if (ends.length === 0) return null;
  const up = reach(count, ends, index.predStart, index.pred);
  let nodes = 0;
  for (let i = 0; i < count; i++) if (down[i] && up[i]) nodes++;
  return { subgraph: { starts: [id], ends: ends.map((i) => index.ids[i]) }, nodes };
}
