/**
 * The "colour by precision" view: each box filled by its node's precision class (core precisionClasses.ts)
 * in the last quantization, so a mixed-precision model shows where it left 8 bits. Graph inputs and outputs
 * keep their colour; nodes the quantization has no class for (inside a fused function, or a model changed
 * since) are drawn in a neutral grey and counted apart. Pure: classes in, colours out.
 */
import type { NodePrecision, PrecisionClass } from '../../../core/quantize/precisionClasses.ts';
import type { GraphView } from './viewModel.ts';

/** Fill colours (white text on all of them), distinct from one another and from the family colours' mood. */
export const PRECISION_COLOURS: Record<PrecisionClass, string> = {
  int8: '#2f5b8a',
  act16: '#c0571a',
  w16: '#7b3fa0',
  a16w16: '#a3173a',
  bf16: '#2e7d5b',
  float: '#6b7480',
};

/** Boxes the quantization names no class for. */
export const UNCLASSIFIED_COLOUR = '#b9c0c8';

export interface PrecisionScale {
  /** Colour per box, null for graph inputs and outputs (their own colour). */
  colours: (string | null)[];
  /** Boxes per class drawn. */
  counts: Partial<Record<PrecisionClass, number>>;
  unclassified: number;
}

export function precisionScale(view: GraphView, precisions: Readonly<Record<string, NodePrecision>>): PrecisionScale {
  const counts: Partial<Record<PrecisionClass, number>> = {};
  let unclassified = 0;
  const colours = view.boxes.map((box) => {
    if (box.kind !== 'node') return null;
    const p = precisions[box.id];
    if (!p) {
      unclassified++;
      return UNCLASSIFIED_COLOUR;
    }
    counts[p.class] = (counts[p.class] ?? 0) + 1;
    return PRECISION_COLOURS[p.class];
  });
  return { colours, counts, unclassified };
}
