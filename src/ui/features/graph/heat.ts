/**
 * The heat-map overlay: per-node values (another screen's, e.g. SQNR per layer) as colours, from bad
 * (red) through amber to good (green), whichever direction is better. Nodes without a value keep
 * their family colour. Pure: a scale in, colours out.
 */
import type { GraphHeat } from '../../store/graphSlice.ts';
import type { GraphView } from './viewModel.ts';

const STOPS: [number, number, number][] = [
  [0xc6, 0x28, 0x28], // bad
  [0xe0, 0x9a, 0x1a],
  [0x2e, 0x8b, 0x3e], // good
];

/** The colour of a quality 0 (bad) … 1 (good). */
export function heatColour(quality: number): string {
  const q = Math.min(1, Math.max(0, quality)) * (STOPS.length - 1);
  const k = Math.min(STOPS.length - 2, Math.floor(q));
  const t = q - k;
  const [a, b] = [STOPS[k], STOPS[k + 1]];
  const hex = (i: number) =>
    Math.round(a[i] + (b[i] - a[i]) * t)
      .toString(16)
      .padStart(2, '0');
  return `#${hex(0)}${hex(1)}${hex(2)}`;
}

export interface HeatScale {
  min: number;
  max: number;
  /** Colour per box, null where the heat has no (finite) value. */
  colours: (string | null)[];
  /** Boxes with a value. */
  count: number;
}

/** Colours for the boxes of a view. */
export function heatScale(view: GraphView, heat: GraphHeat): HeatScale {
  let min = Infinity,
    max = -Infinity;
  for (const v of Object.values(heat.values)) {
    if (!Number.isFinite(v)) continue;
    min = Math.min(min, v);
    max = Math.max(max, v);
  }
  let count = 0;
  const colours = view.boxes.map((box) => {
    const v = heat.values[box.id];
    if (v === undefined || !Number.isFinite(v)) return null;
    count++;
    const t = max > min ? (v - min) / (max - min) : 1;
    return heatColour(heat.higherIsBetter ? t : 1 - t);
  });
  return { min, max, colours, count };
}

/**
 * The heat a body's view reads: values keyed `scope + id` (the per-layer table names a body node
 * `holder/then_branch/Conv_3`) under `id`, the others left out; the heat as it is on the main graph (scope '').
 */
export function scopedHeat(heat: GraphHeat | null, scope: string): GraphHeat | null {
  if (!heat || scope === '') return heat;
  const values: Record<string, number> = {};
  for (const [id, v] of Object.entries(heat.values)) if (id.startsWith(scope)) values[id.slice(scope.length)] = v;
  return { ...heat, values };
}
