/**
 * What the split view shows on top of the comparison the worker made (core/graph/comparison.ts: two lean views,
 * counterparts, difference marks, the files' own values): the marks' colours and words, the value sets the panes
 * can be painted with (the files' and the evaluation's), and per-node values painted on both panes with one colour
 * scale (a value known on one side only is shown on the other side's counterpart too, so SQNR measured on the float
 * model lands on the quantized one). Pure.
 */
import type { LayoutResult } from '../../../core/graph/layeredLayout.ts';
import type { NodeValues } from '../../../core/graph/nodeValues.ts';
import {
  valuesByBox,
  type BoxMark,
  type Comparison,
  type Side,
  type SidedValues,
} from '../../../core/graph/comparison.ts';
import { heatColour } from '../graph/heat.ts';

export type { BoxMark, Side, SidedValues };

/** A comparison ready to draw: the worker's result and both layouts. */
export interface CompareModel extends Comparison {
  layouts: { a: LayoutResult; b: LayoutResult };
  /** Made from the open model and its quantization (the evaluation's measurements then apply to side a). */
  fromRun?: boolean;
}

export const MARK_COLOURS: Record<BoxMark, string | null> = {
  same: '#8b95a3',
  changed: '#d39214',
  added: '#1f9d6b',
  removed: '#c62828',
  merged: '#7b3fa0',
  quantization: '#5f86ad',
  io: null,
};

export const MARK_LABELS: Record<Exclude<BoxMark, 'io'>, string> = {
  same: 'the same on both sides',
  changed: 'changed (op, attributes, or something folded into it)',
  added: 'only on this side (added)',
  removed: 'only on this side (removed)',
  merged: 'folded into its counterpart (BatchNormalization, affine)',
  quantization: "the quantization's own (Q/DQ shown as nodes, dynamic quantize and rescale)",
};

/** Fill colours of the difference marks, per box. */
export function markColours(model: Comparison, side: Side): (string | null)[] {
  return model.marks[side].map((m) => MARK_COLOURS[m]);
}

/**
 * The value sets both panes can be painted with, by key. `measured`: values keyed by the first model's ids (the
 * evaluation's SQNR and error jumps, when the first model is the one evaluated); then the files' own.
 */
export function compareValueSets(
  model: Comparison,
  measured: ReadonlyMap<string, NodeValues>,
): Map<string, SidedValues> {
  const sets = new Map<string, SidedValues>();
  for (const [k, v] of measured)
    sets.set(k, { label: v.label, higherIsBetter: v.higherIsBetter, a: valuesByBox(model.views.a, v.values), b: null });
  for (const [k, v] of Object.entries(model.fileValues)) sets.set(k, v);
  return sets;
}

export interface PaintedValues {
  min: number;
  max: number;
  colours: { a: (string | null)[]; b: (string | null)[] };
  /** The value shown on each box (NaN: none). */
  values: { a: Float64Array; b: Float64Array };
}

/** Both panes' colours on one scale (min and max over both sides). */
export function paintValues(model: Comparison, set: SidedValues): PaintedValues {
  const values = {
    a: new Float64Array(model.views.a.boxes.length).fill(NaN),
    b: new Float64Array(model.views.b.boxes.length).fill(NaN),
  };
  for (const side of ['a', 'b'] as const) {
    const own = set[side];
    const other = set[side === 'a' ? 'b' : 'a'];
    const counterpart = model.counterpart[side];
    const out = values[side];
    for (let i = 0; i < out.length; i++) {
      // A side without values of its own shows its counterpart's.
      const c = counterpart[i];
      const v = own ? own[i] : other && c >= 0 ? other[c] : NaN;
      if (Number.isFinite(v)) out[i] = v;
    }
  }
  let min = Infinity,
    max = -Infinity;
  for (const arr of [values.a, values.b])
    for (const v of arr)
      if (!Number.isNaN(v)) {
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
