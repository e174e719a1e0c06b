/**
 * What the split view shows, without a DOM: two graph views (Q/DQ folded), the core's node mapping between them
 * lifted to boxes (graph inputs and outputs matched by name, then by position), each box's difference mark, and
 * per-node values painted on both panes with one colour scale (a value known on one side only is shown on the
 * other side's counterpart too, so SQNR measured on the float model lands on the quantized one). Pure.
 */
import type { GraphProto } from '../../../core/onnx/model.ts';
import { buildGraphIndex } from '../../../core/onnx/graphIndex.ts';
import { mapNodes, type NodeMapping } from '../../../core/graph/nodeMapping.ts';
import { bitWidthValues, keptFloatValues, outputScaleValues, type NodeValues } from '../../../core/graph/nodeValues.ts';
import { buildGraphView, type GraphView } from '../graph/viewModel.ts';
import { heatColour } from '../graph/heat.ts';

export type Side = 'a' | 'b';
export type BoxMark = 'same' | 'changed' | 'added' | 'removed' | 'merged' | 'io';

export interface CompareModel {
  names: { a: string; b: string };
  views: { a: GraphView; b: GraphView };
  mapping: NodeMapping;
  /** Counterpart box of each box on the other side (-1: none). */
  counterpart: { a: Int32Array; b: Int32Array };
  marks: { a: BoxMark[]; b: BoxMark[] };
  /** Made from the open model and its quantization (the evaluation's measurements then apply to side a). */
  fromRun?: boolean;
}

/** The two views and their mapping. */
export function buildCompareModel(a: { name: string; graph: GraphProto }, b: { name: string; graph: GraphProto }): CompareModel {
  const views = { a: buildGraphView(buildGraphIndex(a.graph)), b: buildGraphView(buildGraphIndex(b.graph)) };
  return compareViews(views.a, views.b, { a: a.name, b: b.name });
}

export function compareViews(va: GraphView, vb: GraphView, names: { a: string; b: string }): CompareModel {
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
    a: va.boxes.map((box): BoxMark => (box.node < 0 ? 'io' : markOf(mapping.statusA[box.node]))),
    b: vb.boxes.map((box): BoxMark => (box.node < 0 ? 'io' : markOf(mapping.statusB[box.node]))),
  };
  return { names, views: { a: va, b: vb }, mapping, counterpart: { a: toB, b: toA }, marks };
}

function markOf(status: string): BoxMark {
  return status === 'ignored' ? 'same' : (status as BoxMark);
}

export const MARK_COLOURS: Record<BoxMark, string | null> = {
  same: '#8b95a3',
  changed: '#d39214',
  added: '#1f9d6b',
  removed: '#c62828',
  merged: '#7b3fa0',
  io: null,
};

export const MARK_LABELS: Record<Exclude<BoxMark, 'io'>, string> = {
  same: 'the same on both sides',
  changed: 'changed (op, attributes, or something folded into it)',
  added: 'only on this side (added)',
  removed: 'only on this side (removed)',
  merged: 'folded into its counterpart (BatchNormalization, affine)',
};

/** Fill colours of the difference marks, per box. */
export function markColours(model: CompareModel, side: Side): (string | null)[] {
  return model.marks[side].map((m) => MARK_COLOURS[m]);
}

/** A value set at hand on one side or both (the file's Q/DQ, the store's heat map, …). */
export interface SidedValues {
  label: string;
  higherIsBetter: boolean;
  a: NodeValues['values'] | null;
  b: NodeValues['values'] | null;
}

/**
 * The value sets both panes can be painted with, by key. `measured`: values keyed by the first model's ids (the
 * evaluation's SQNR and error jumps, when the first model is the one evaluated).
 */
export function compareValueSets(model: CompareModel, measured: ReadonlyMap<string, NodeValues>): Map<string, SidedValues> {
  const sets = new Map<string, SidedValues>();
  for (const [k, v] of measured) sets.set(k, { label: v.label, higherIsBetter: v.higherIsBetter, a: v.values, b: null });
  const per = (make: (v: GraphView) => NodeValues | null) => {
    const a = make(model.views.a), b = make(model.views.b);
    return a || b ? { label: (a ?? b)!.label, higherIsBetter: (a ?? b)!.higherIsBetter, a: a?.values ?? null, b: b?.values ?? null } : null;
  };
  const bits = per((v) => (v.qdq ? bitWidthValues(v.index, v.qdq) : floatBits(v)));
  if (bits) sets.set('bits', bits);
  const scale = per((v) => (v.qdq ? outputScaleValues(v.index, v.qdq) : null));
  if (scale && (scale.a || scale.b)) sets.set('scale', scale);
  const float = per((v) => (v.qdq ? keptFloatValues(v.index, v.qdq) : null));
  if (float) sets.set('float', float);
  return sets;
}

/** A float model computes every node at 32 bits. */
function floatBits(v: GraphView): NodeValues {
  const values: Record<string, number> = {};
  v.boxes.forEach((b) => {
    if (b.kind === 'node') values[b.id] = 32;
  });
  return { label: 'bit width', higherIsBetter: true, values };
}

export interface PaintedValues {
  min: number;
  max: number;
  colours: { a: (string | null)[]; b: (string | null)[] };
  /** The value shown on each box (NaN: none). */
  values: { a: Float64Array; b: Float64Array };
}

/** Both panes' colours on one scale (min and max over both sides). */
export function paintValues(model: CompareModel, set: SidedValues): PaintedValues {
  const values = { a: new Float64Array(model.views.a.boxes.length).fill(NaN), b: new Float64Array(model.views.b.boxes.length).fill(NaN) };
  for (const side of ['a', 'b'] as const) {
    const view = model.views[side];
    const own = set[side];
    const other = set[side === 'a' ? 'b' : 'a'];
    const otherView = model.views[side === 'a' ? 'b' : 'a'];
    view.boxes.forEach((box, i) => {
      let v = own?.[box.id];
      if (v === undefined && !own && other) {
        const c = model.counterpart[side][i];
        if (c >= 0) v = other[otherView.boxes[c].id];
      }
      if (v !== undefined && Number.isFinite(v)) values[side][i] = v;
    });
  }
  let min = Infinity, max = -Infinity;
  for (const arr of [values.a, values.b]) for (const v of arr) if (!Number.isNaN(v)) {
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  const colour = (v: number) => {
    if (Number.isNaN(v)) return null;
    const t = max > min ? (v - min) / (max - min) : 1;
    return heatColour(set.higherIsBetter ? t : 1 - t);
  };
  return { min, max, values, colours: { a: Array.from(values.a, colour), b: Array.from(values.b, colour) } };
}
