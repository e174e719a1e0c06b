/**
 * Per-node values (bit width, scale, kept float, SQNR, error jump, …) as one shape the graph colours, the split
 * view paints on both panes and the export writes, and their export in Google Model Explorer's node-data format:
 * `{ <graph id>: { results: { <key>: { value } }, gradient: [{ stop, bgColor }] } }`, where a key is one of the
 * node's output tensor names (Model Explorer matches it against each node's outputs) so the file opens on any
 * adapter's view of the same ONNX model.
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import type { QdqFold } from './qdqFold.ts';
import { foldedSourceNumber, qdqPrecisionLabels } from './qdqFold.ts';

export interface NodeValues {
  /** What the values are, with units: 'SQNR (dB)', 'bit width'. */
  label: string;
  higherIsBetter: boolean;
  /** By stable node id. */
  values: Record<string, number>;
}

/** The labels of a QDQ model's value sets, known before any is computed (the export's picker lists them). */
export const QDQ_VALUE_LABELS = {
  bits: 'bit width',
  scale: 'output scale',
  float: 'kept float (1) or quantized (0)',
} as const;

/** The widest integer type a node computes in (32 for float), from its precision label ("A16W8" → 16). */
export function bitsOfLabel(label: string): number {
  const bits = [...label.matchAll(/[AW](\d+)/g)].map((m) => Number(m[1]));
  return bits.length ? Math.max(...bits) : 32;
}

/**
 * Values by node index (NaN: none), the form the split view lays onto its boxes (comparison.ts); the NodeValues
 * below key the same values by node id for the graph's colours and the export.
 */
export type NodeArray = Float64Array;

/** Per-node values keyed by stable node id (nodes without one, NaN, left out). */
function byId(index: GraphIndex, perNode: NodeArray): Record<string, number> {
  const values: Record<string, number> = {};
  for (let i = 0; i < perNode.length; i++) if (!Number.isNaN(perNode[i])) values[index.ids[i]] = perNode[i];
  return values;
}

/** Bit width of each node of a QDQ model by node index, read from its Q/DQ (NaN on the Q/DQ nodes themselves). */
export function bitWidthsByNode(index: GraphIndex, fold: QdqFold, labels = qdqPrecisionLabels(index, fold)): NodeArray {
  const out = new Float64Array(index.nodes.length).fill(NaN);
  // A model has a handful of labels: each read once.
  const bitsByLabel = new Map<string, number>();
  for (const [i, label] of labels) {
    let bits = bitsByLabel.get(label);
    if (bits === undefined) bitsByLabel.set(label, (bits = bitsOfLabel(label)));
    out[i] = bits;
  }
  return out;
}

/** Bit width of every node of a QDQ model, read from its Q/DQ (Q/DQ nodes left out). `labels`: its precision labels when at hand. */
export function bitWidthValues(index: GraphIndex, fold: QdqFold, labels = qdqPrecisionLabels(index, fold)): NodeValues {
  return {
    label: QDQ_VALUE_LABELS.bits,
    higherIsBetter: true,
    values: byId(index, bitWidthsByNode(index, fold, labels)),
  };
}

/** By node index: 1 where a node computes in float, 0 where it is quantized (NaN on Q/DQ nodes). */
export function keptFloatByNode(index: GraphIndex, fold: QdqFold, labels = qdqPrecisionLabels(index, fold)): NodeArray {
  const out = new Float64Array(index.nodes.length).fill(NaN);
  for (const [i, label] of labels) out[i] = label === 'float' ? 1 : 0;
  return out;
}

/** 1 where a node computes in float (no Q/DQ on its inputs, outputs or weights), 0 where it is quantized. */
export function keptFloatValues(
  index: GraphIndex,
  fold: QdqFold,
  labels = qdqPrecisionLabels(index, fold),
): NodeValues {
  return {
    label: QDQ_VALUE_LABELS.float,
    higherIsBetter: false,
    values: byId(index, keptFloatByNode(index, fold, labels)),
  };
}

/** By node index: the scale of each node's quantized output (the Q/DQ pair after it), per tensor; NaN without one. */
export function outputScalesByNode(index: GraphIndex, fold: QdqFold): NodeArray {
  // By tensor number: the scale of each tensor a Q/DQ pair quantizes per tensor.
  const scaleOf = new Float64Array(index.tensorNames.length);
  const hasScale = new Uint8Array(index.tensorNames.length);
  for (const e of fold.edges.values()) {
    const k = e.params.scales?.length === 1 ? foldedSourceNumber(index, e) : -1;
    if (k < 0) continue;
    scaleOf[k] = e.params.scales![0];
    hasScale[k] = 1;
  }
  const out = new Float64Array(index.nodes.length).fill(NaN);
  for (let i = 0; i < index.nodes.length; i++) {
    if (fold.folded[i]) continue;
    for (let k = index.outputStart[i]; k < index.outputStart[i + 1]; k++)
      if (hasScale[k]) {
        out[i] = scaleOf[k];
        break;
      }
  }
  return out;
}

/** The scale of each node's quantized output (the Q/DQ pair after it), per tensor; nodes without one left out. */
export function outputScaleValues(index: GraphIndex, fold: QdqFold): NodeValues {
  return { label: QDQ_VALUE_LABELS.scale, higherIsBetter: false, values: byId(index, outputScalesByNode(index, fold)) };
}

export interface ModelExplorerResult {
  value: number;
  bgColor?: string;
}

export interface ModelExplorerGraphData {
  results: Record<string, ModelExplorerResult>;
  gradient: { stop: number; bgColor: string }[];
}

/** Bad (red) to good (green), as the graph's heat colours; reversed where lower is better. */
const GRADIENT = ['#c62828', '#e09a1a', '#2e8b3e'];

/**
 * The values in Model Explorer's node-data format, keyed by each node's first output tensor name (a node whose id
 * the index does not know is left out). `graphId`: the graph's name in the file ('main_graph' when unnamed).
 */
export function modelExplorerNodeData(
  index: GraphIndex,
  values: NodeValues,
  graphId = index.graph.name || 'main_graph',
): Record<string, ModelExplorerGraphData> {
  const results: Record<string, ModelExplorerResult> = {};
  for (const [id, value] of Object.entries(values.values)) {
    const i = index.indexOfId.get(id as never);
    const key = i === undefined ? undefined : index.nodes[i].output.find((o) => o);
    if (key && Number.isFinite(value)) results[key] = { value };
  }
  const colours = values.higherIsBetter ? GRADIENT : [...GRADIENT].reverse();
  const gradient = colours.map((bgColor, k) => ({ stop: k / (colours.length - 1), bgColor }));
  return { [graphId]: { results, gradient } };
}
