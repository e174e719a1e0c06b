/**
 * Two models side by side, without a DOM: each graph's view (Q/DQ folded before anything is laid out), the node
 * mapping between them (nodeMapping.ts) lifted to boxes (graph inputs and outputs matched by name, then by
 * position), each box's difference mark, and the per-node values the files themselves hold (bit width, output
 * scale, kept float) for both panes. What leaves here is lean on purpose: boxes, edges and plain arrays, no graph
 * index, no tensor bytes, so the comparison worker hands it to the page in one cheap message.
 */
import { StudioError } from '../onnx/errors.ts';
import { buildGraphIndex } from '../onnx/graphIndex.ts';
import type { GraphProto } from '../onnx/model.ts';
import { buildGraphView, type GraphView, type PaneView } from './graphView.ts';
import { mapNodes, type NodeMapping } from './nodeMapping.ts';
import { qdqPrecisionLabels } from './qdqFold.ts';
import {
  bitWidthsByNode,
  keptFloatByNode,
  outputScalesByNode,
  QDQ_VALUE_LABELS,
  type NodeArray,
  type NodeValues,
} from './nodeValues.ts';

export type Side = 'a' | 'b';
/**
 * A box's difference mark. 'quantization': a node of the quantization itself, not of the model's computation (a Q/DQ
 * shown as a node, quantize_dynamic's DynamicQuantizeLinear and float rescale): no counterpart is looked for.
 */
export type BoxMark = 'same' | 'changed' | 'added' | 'removed' | 'merged' | 'quantization' | 'io';

/**
 * A value set at hand on one side or both (the file's Q/DQ, the evaluation's measurements, …): each box's value on
 * that side, in the order of the side's boxes (NaN: none). Box-aligned arrays rather than records by node id, so a
 * comparison crosses from its worker as a few transferred buffers, not 100,000 keyed entries to clone.
 */
export interface SidedValues {
  label: string;
  higherIsBetter: boolean;
  a: Float64Array | null;
  b: Float64Array | null;
}

/** Values by node id laid onto a pane's boxes (NaN where a box has none). */
export function valuesByBox(view: Pick<PaneView, 'boxes'>, values: NodeValues['values']): Float64Array {
  const out = new Float64Array(view.boxes.length).fill(NaN);
  const { boxes } = view;
  for (let i = 0; i < boxes.length; i++) {
    const v = values[boxes[i].id];
    if (v !== undefined) out[i] = v;
  }
  return out;
}

export interface Comparison {
  names: { a: string; b: string };
  views: { a: PaneView; b: PaneView };
  mapping: Pick<NodeMapping, 'common' | 'related' | 'counts'>;
  /** Counterpart box of each box on the other side (-1: none). */
  counterpart: { a: Int32Array; b: Int32Array };
  marks: { a: BoxMark[]; b: BoxMark[] };
  /** The values the two files hold, by key ('bits', 'scale', 'float'); absent where neither side has them. */
  fileValues: Record<string, SidedValues>;
}

/** A model to compare: its name and its graph (weights may be left out; Q/DQ scales and zero points are read). */
export interface ComparedGraph {
  name: string;
  graph: GraphProto;
}

/** Not two models, one too large, or a file without a graph: what the split view cannot compare. */
export class CompareInputError extends StudioError {
  override readonly name = 'CompareInputError';
}

/** The whole comparison of two graphs. `onPhase` hears each of its three steps as it starts. */
export function compareGraphs(
  a: ComparedGraph,
  b: ComparedGraph,
  onPhase?: (step: number, phase: string) => void,
): Comparison {
  onPhase?.(0, `folding ${a.name}`);
  const va = buildGraphView(buildGraphIndex(a.graph));
  onPhase?.(1, `folding ${b.name}`);
  const vb = buildGraphView(buildGraphIndex(b.graph));
  onPhase?.(2, 'matching nodes');
  return compareViews(va, vb, { a: a.name, b: b.name });
}

/** The comparison of two views already built. */
export function compareViews(va: GraphView, vb: GraphView, names: { a: string; b: string }): Comparison {
  const mapping = mapNodes(va.index, vb.index, { a: va.qdq, b: vb.qdq });
  const toB = new Int32Array(va.boxes.length).fill(-1);
  const toA = new Int32Array(vb.boxes.length).fill(-1);
  va.boxes.forEach((box, i) => {
    if (box.node < 0) return;
    const j = mapping.aToB[box.node];
    if (j >= 0 && vb.boxOfNode[j] >= 0) toB[i] = vb.boxOfNode[j];
  });
  vb.boxes.forEach((box, j) => {
    if (box.node < 0) return;
    const i = mapping.bToA[box.node];
    if (i >= 0 && va.boxOfNode[i] >= 0) toA[j] = va.boxOfNode[i];
  });
  // Graph inputs and outputs: by name, else by position among their kind.
  for (const kind of ['input', 'output'] as const) {
    const as = va.boxes.map((b, i) => (b.kind === kind ? i : -1)).filter((i) => i >= 0);
    const bs = vb.boxes.map((b, i) => (b.kind === kind ? i : -1)).filter((i) => i >= 0);
    as.forEach((i, k) => {
      const byName = bs.find((j) => vb.boxes[j].title === va.boxes[i].title);
      const j = byName ?? (as.length === bs.length ? bs[k] : undefined);
      if (j !== undefined && toA[j] < 0) {
        toB[i] = j;
        toA[j] = i;
      }
    });
  }
  const marks = {
    a: va.boxes.map((box): BoxMark => (box.node < 0 ? 'io' : markOf(mapping.statusA[box.node], va, box.node))),
    b: vb.boxes.map((box): BoxMark => (box.node < 0 ? 'io' : markOf(mapping.statusB[box.node], vb, box.node))),
  };
  return {
    names,
    views: { a: paneView(va), b: paneView(vb) },
    mapping: { common: mapping.common, related: mapping.related, counts: mapping.counts },
    counterpart: { a: toB, b: toA },
    marks,
    fileValues: fileValues(va, vb),
  };
}

/** A node the mapping left out is the quantization's own, unless it is a Constant drawn as a box. */
function markOf(status: string, view: GraphView, node: number): BoxMark {
  if (status !== 'ignored') return status as BoxMark;
  return view.index.nodes[node].op_type === 'Constant' ? 'same' : 'quantization';
}

/** What a pane draws: the boxes and the edges with their labels (the folded Q/DQ's parameters stay here). */
function paneView(view: GraphView): PaneView {
  return {
    boxes: view.boxes,
    // Only an edge with a folded Q/DQ on it is copied (without it); the others are sent as they are.
    edges: view.edges.map((e) =>
      e.quant ? { source: e.source, target: e.target, tensor: e.tensor, label: e.label } : e,
    ),
    boxById: view.boxById,
    qdqFolded: view.qdqFolded,
  };
}

/** The values the files hold: bit width (32 on a float model), output scale and kept float (QDQ models only). */
function fileValues(va: GraphView, vb: GraphView): Record<string, SidedValues> {
  const sets: Record<string, SidedValues> = {};
  const per = (
    key: keyof typeof QDQ_VALUE_LABELS,
    higherIsBetter: boolean,
    make: (v: GraphView) => NodeArray | null,
  ) => {
    const a = make(va),
      b = make(vb);
    if (a || b)
      sets[key] = {
        label: QDQ_VALUE_LABELS[key],
        higherIsBetter,
        a: a ? byBox(va, a) : null,
        b: b ? byBox(vb, b) : null,
      };
  };
  // Each side's precision labels once, for its bit widths and its kept-float marks.
  const labels = new Map([va, vb].map((v) => [v, v.qdq ? qdqPrecisionLabels(v.index, v.qdq) : null]));
  // A float model computes every node at 32 bits.
  per('bits', true, (v) =>
    v.qdq ? bitWidthsByNode(v.index, v.qdq, labels.get(v)!) : new Float64Array(v.index.nodes.length).fill(32),
  );
  per('scale', false, (v) => (v.qdq ? outputScalesByNode(v.index, v.qdq) : null));
  per('float', false, (v) => (v.qdq ? keptFloatByNode(v.index, v.qdq, labels.get(v)!) : null));
  return sets;
}

/** Values by node index laid onto a view's boxes (NaN for graph inputs and outputs, and nodes without one). */
function byBox(view: GraphView, perNode: NodeArray): Float64Array {
  const { boxes } = view;
  const out = new Float64Array(boxes.length).fill(NaN);
  for (let i = 0; i < boxes.length; i++) if (boxes[i].kind === 'node') out[i] = perNode[boxes[i].node];
  return out;
}
