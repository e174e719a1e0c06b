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
 * An input that was not compared but has a producer (a float tensor graph preparation folded away,
 * e.g. the Conv output a folded BatchNormalization read) stands for what its producer read: the
 * drop of a BatchNormalization folded into its Conv is measured over the pair, from the Conv's
 * inputs. A node reading nothing compared upstream (only weights, or integer shape tensors) counts
 * its inputs as exact (+Infinity); a node whose outputs are exact adds nothing (drop 0). Must not
 * run models or decide exclusions: it ranks, the caller chooses.
 */

import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import { isDefaultDomain, type NodeId } from '../onnx/model.ts';
import { CONTROL_FLOW_OPS } from '../onnx/scopes.ts';
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
  /** The compared tensor upstream with the lowest SQNR (an input, or what a folded input was made from); null when none. */
  readonly worstInput: string | null;
  /** A control-flow node whose bodies' nodes are listed too (their drops are where its own comes from). */
  readonly holdsListed?: true;
}

/**
 * Every node that has a compared output, in topological order. Where rows cover tensors inside If/Loop/Scan bodies
 * (./layerwiseTensors.ts), the body's nodes come just before their holder, with the ids the pairing gave them
 * (`holder/then_branch/Conv_3`); a body node reading an outer-scope tensor reads its row.
 */
export function nodeErrors(rows: readonly LayerRow[], index: GraphIndex): NodeError[] {
  const byTensor = new Map(rows.map((r) => [r.tensor, r]));
  const out: NodeError[] = [];
  const bodies = rows.some((r) => r.node !== null && !index.indexOfId.has(r.node));
  scopeErrors(byTensor, index, '', bodies, out);
  return out;
}

/** nodeErrors of one graph (the main graph or a body, whose ids get `prefix`), appended to `out`. */
function scopeErrors(
  byTensor: ReadonlyMap<string, LayerRow>,
  index: GraphIndex,
  prefix: string,
  bodies: boolean,
  out: NodeError[],
): void {
  // Worst compared tensor read by node i, looking through uncompared (folded) producers; memoized in topological order.
  const upstream = new Map<number, { sqnr: number; tensor: string | null }>();
  const worstRead = (i: number): { sqnr: number; tensor: string | null } => {
    let best: { sqnr: number; tensor: string | null } = { sqnr: Infinity, tensor: null };
    for (const t of index.nodeInputs[i]) {
      const r = byTensor.get(t);
      let candidate: { sqnr: number; tensor: string | null };
      if (r) candidate = { sqnr: r.sqnr, tensor: t };
      else {
        const p = index.producer.get(t);
        if (p === undefined) continue;
        candidate = upstream.get(p) ?? { sqnr: Infinity, tensor: null };
      }
      if (candidate.tensor !== null && (best.tensor === null || candidate.sqnr < best.sqnr)) best = candidate;
    }
    return best;
  };
  for (const i of index.order) {
    const node = index.nodes[i];
    const id = `${prefix}${index.ids[i]}`;
    const listed = out.length;
    if (bodies && CONTROL_FLOW_OPS.has(node.op_type ?? '') && isDefaultDomain(node.domain))
      for (const a of node.attribute)
        if (a.g) scopeErrors(byTensor, buildGraphIndex(a.g), `${id}/${a.name}/`, true, out);
    const holdsListed = out.length > listed;
    let sqnr = Infinity;
    let seen = false;
    for (const o of node.output) {
      const r = byTensor.get(o);
      if (!r) continue;
      seen = true;
      if (!(r.sqnr >= sqnr)) sqnr = r.sqnr; // NaN wins: an undefined output is not hidden
    }
    const read = worstRead(i);
    upstream.set(i, read);
    if (!seen) continue;
    const inputSqnr = read.sqnr;
    const worstInput = read.tensor;
    const drop = sqnr === Infinity ? 0 : inputSqnr - sqnr;
    const error = { node: id as NodeId, opType: node.op_type ?? '', sqnr, inputSqnr, drop, worstInput };
    out.push(holdsListed ? { ...error, holdsListed } : error);
  }
}

/**
 * The nodes whose drop exceeds `thresholdDb`, largest drop first (NaN drops are left out); a control-flow node whose
 * bodies' nodes are listed is left out too: its drop is theirs, summed.
 */
export function errorJumps(rows: readonly LayerRow[], index: GraphIndex, thresholdDb = 3): NodeError[] {
  return nodeErrors(rows, index)
    .filter((e) => e.drop > thresholdDb && !e.holdsListed)
    .sort((a, b) => b.drop - a.drop || a.sqnr - b.sqnr || 0);
}
