/**
 * Where the error jumps: the nodes whose output is much further from the float model than the
 * inputs they read.
 *
 * Quantization error accumulates along the graph, so the tensors with the lowest SQNR are usually
 * near the outputs even when the damage was done early. What a node adds is the drop between the
 * SQNR of what it reads and the SQNR of what it writes (both the dequantized values where they
 * exist, the values the quantized model really passes on; see ./layerwise.ts):
 *
 *   drop = min SQNR over the node's compared inputs − min SQNR over its outputs      (dB)
 *
 * A node reading nothing compared (only weights, or integer shape tensors) counts its inputs as
 * exact (+Infinity); a node whose outputs are exact adds nothing (drop 0). Must not run models or
 * decide exclusions: it ranks, the caller chooses.
 */

import type { GraphIndex } from '../onnx/graphIndex.ts';
import type { NodeId } from '../onnx/model.ts';
import type { LayerRow } from './layerwise.ts';

/** What one node adds to the error. */
export interface NodeError {
  readonly node: NodeId;
  readonly opType: string;
  /** Lowest SQNR of the node's outputs, dB. */
  readonly sqnr: number;
  /** Lowest SQNR of the tensors it reads, dB; +Infinity when none was compared. */
  readonly inputSqnr: number;
  /** inputSqnr − sqnr, dB (≥ 0 when the node makes things worse); 0 when its outputs are exact. */
  readonly drop: number;
  /** The input with the lowest SQNR (null when none was compared). */
  readonly worstInput: string | null;
}

/** Every node that has a compared output, in topological order. */
export function nodeErrors(rows: readonly LayerRow[], index: GraphIndex): NodeError[] {
  const byTensor = new Map(rows.map((r) => [r.tensor, r]));
  const out: NodeError[] = [];
  for (const i of index.order) {
    const node = index.nodes[i];
    let sqnr = Infinity;
    let seen = false;
    for (const o of node.output) {
      const r = byTensor.get(o);
      if (!r) continue;
      seen = true;
      if (!(r.sqnr >= sqnr)) sqnr = r.sqnr; // NaN wins: an undefined output is not hidden
    }
    if (!seen) continue;
    let inputSqnr = Infinity;
    let worstInput: string | null = null;
    for (const t of index.nodeInputs[i]) {
      const r = byTensor.get(t);
      if (!r) continue;
      if (worstInput === null || r.sqnr < inputSqnr) {
        inputSqnr = r.sqnr;
        worstInput = t;
      }
    }
    const drop = sqnr === Infinity ? 0 : inputSqnr - sqnr;
    out.push({ node: index.ids[i], opType: node.op_type ?? '', sqnr, inputSqnr, drop, worstInput });
  }
  return out;
}

/** The nodes whose drop exceeds `thresholdDb`, largest drop first (NaN drops are left out). */
export function errorJumps(rows: readonly LayerRow[], index: GraphIndex, thresholdDb = 3): NodeError[] {
  return nodeErrors(rows, index)
    .filter((e) => e.drop > thresholdDb)
    .sort((a, b) => b.drop - a.drop || (a.sqnr - b.sqnr || 0));
}
