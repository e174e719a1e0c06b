/**
 * Where each edge's shape label goes, so that labels never overlap each other or sit under a box: a tensor read by
 * several nodes is labelled once (its edges all carry the same shape), and each label takes the first free place
 * along its edge (the middle, then nearer either end); a label with no free place is left out (the inspector and
 * the edge's other end still say the shape). Computed once per layout, for cytoscape (as label offsets from the
 * edge's middle) and for the first picture's painter alike. Pure but for `measure` (the label's width in pixels).
 */
import type { LayoutResult } from '../../../core/graph/layeredLayout.ts';
import type { DrawnView } from './viewModel.ts';

export interface EdgeLabels {
  /** The label each edge shows ('' for none). */
  text: string[];
  /** Offset of the label's centre from the middle of the edge's visible segment (model units). */
  dx: Float32Array;
  dy: Float32Array;
}

/** Where along the visible segment a label may sit, in order of preference. */
const PLACES = [0.5, 0.35, 0.65, 0.22, 0.78];
/** The label's box: text height plus cytoscape's background padding, and a gap kept to the next label. */
export const EDGE_LABEL_HEIGHT = 13;
const GAP = 2;
const CELL = 128;

/** Where the segment from a box's centre towards (tx, ty) leaves the box (its rectangle). */
export function boxExit(cx: number, cy: number, hw: number, hh: number, tx: number, ty: number): [number, number] {
  const dx = tx - cx,
    dy = ty - cy;
  if (dx === 0 && dy === 0) return [cx, cy];
  const t = Math.min(dx === 0 ? Infinity : hw / Math.abs(dx), dy === 0 ? Infinity : hh / Math.abs(dy));
  return [cx + dx * t, cy + dy * t];
}

/** The visible segment of an edge: from where it leaves its source box to where it enters its target box. */
export function edgeSegment(
  view: DrawnView,
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  k: number,
): [number, number, number, number] {
  const e = view.edges[k];
  const s = view.boxes[e.source],
    t = view.boxes[e.target];
  const [sx, sy] = boxExit(x[e.source], y[e.source], s.width / 2, s.height / 2, x[e.target], y[e.target]);
  const [tx, ty] = boxExit(x[e.target], y[e.target], t.width / 2, t.height / 2, x[e.source], y[e.source]);
  return [sx, sy, tx, ty];
}

/** Rectangles bucketed by a grid, for overlap tests. */
class RectIndex {
  private readonly cells = new Map<number, number[]>();
  private readonly rects: number[] = [];
  add(x1: number, y1: number, x2: number, y2: number) {
    const id = this.rects.length / 4;
    this.rects.push(x1, y1, x2, y2);
    this.each(x1, y1, x2, y2, (key) => {
      let list = this.cells.get(key);
      if (!list) this.cells.set(key, (list = []));
      list.push(id);
    });
  }
  hits(x1: number, y1: number, x2: number, y2: number): boolean {
    let hit = false;
    this.each(x1, y1, x2, y2, (key) => {
      if (hit) return;
      for (const id of this.cells.get(key) ?? []) {
        const r = this.rects;
        if (r[4 * id] < x2 && r[4 * id + 2] > x1 && r[4 * id + 1] < y2 && r[4 * id + 3] > y1) {
          hit = true;
          return;
        }
      }
    });
    return hit;
  }
  private each(x1: number, y1: number, x2: number, y2: number, visit: (key: number) => void) {
    for (let gx = Math.floor(x1 / CELL); gx <= Math.floor(x2 / CELL); gx++) {
      for (let gy = Math.floor(y1 / CELL); gy <= Math.floor(y2 / CELL); gy++) visit(gx * 1_000_003 + gy);
    }
  }
}

/**
 * `onBox` says whether a rectangle overlaps a box (the renderer answers from the grid it already has); without it the
 * boxes are indexed here.
 */
export function placeEdgeLabels(
  view: DrawnView,
  layout: LayoutResult,
  measure: (text: string) => number,
  onBox?: (x1: number, y1: number, x2: number, y2: number) => boolean,
): EdgeLabels {
  const m = view.edges.length;
  const text: string[] = new Array(m).fill('');
  const dx = new Float32Array(m),
    dy = new Float32Array(m);
  const { x, y } = layout;
  const taken = new RectIndex();
  if (!onBox) {
    const boxes = new RectIndex();
    view.boxes.forEach((b, i) =>
      boxes.add(x[i] - b.width / 2, y[i] - b.height / 2, x[i] + b.width / 2, y[i] + b.height / 2),
    );
    onBox = (x1, y1, x2, y2) => boxes.hits(x1, y1, x2, y2);
  }
  const widths = new Map<string, number>();
  const labelled = new Set<string>(); // tensors already labelled
  for (let k = 0; k < m; k++) {
    const edge = view.edges[k];
    if (!edge.label || labelled.has(edge.tensor)) continue;
    let w = widths.get(edge.label);
    if (w === undefined) widths.set(edge.label, (w = measure(edge.label) + 2));
    const [sx, sy, tx, ty] = edgeSegment(view, x, y, k);
    const hw = w / 2 + GAP,
      hh = EDGE_LABEL_HEIGHT / 2 + GAP;
    for (const t of PLACES) {
      const cx = sx + (tx - sx) * t,
        cy = sy + (ty - sy) * t;
      if (taken.hits(cx - hw, cy - hh, cx + hw, cy + hh) || onBox(cx - hw, cy - hh, cx + hw, cy + hh)) continue;
      taken.add(cx - hw, cy - hh, cx + hw, cy + hh);
      text[k] = edge.label;
      dx[k] = cx - (sx + tx) / 2;
      dy[k] = cy - (sy + ty) / 2;
      labelled.add(edge.tensor);
      break;
    }
  }
  return { text, dx, dy };
}
