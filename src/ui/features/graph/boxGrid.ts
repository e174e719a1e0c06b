/**
 * Boxes of a laid-out graph view bucketed by a uniform grid over the layout: which boxes overlap a rectangle, fast,
 * for the renderer's window (the boxes handed to cytoscape), its hit-testing and the edge labels' placement.
 */
import type { LayoutResult } from '../../../core/graph/layeredLayout.ts';
import type { DrawnView } from './viewModel.ts';

const GRID_CELL = 512;

/** Boxes bucketed by a uniform grid over the layout, for windowing and hit-testing. */
export class BoxGrid {
  private readonly cells = new Map<number, number[]>();
  constructor(
    private readonly view: DrawnView,
    private readonly layout: LayoutResult,
  ) {
    view.boxes.forEach((b, i) => {
      const x0 = Math.floor((layout.x[i] - b.width / 2) / GRID_CELL),
        x1 = Math.floor((layout.x[i] + b.width / 2) / GRID_CELL);
      const y0 = Math.floor((layout.y[i] - b.height / 2) / GRID_CELL),
        y1 = Math.floor((layout.y[i] + b.height / 2) / GRID_CELL);
      for (let gx = x0; gx <= x1; gx++) for (let gy = y0; gy <= y1; gy++) this.bucket(gx, gy).push(i);
    });
  }
  private key(gx: number, gy: number) {
    return gx * 1_000_003 + gy;
  }
  private bucket(gx: number, gy: number) {
    const k = this.key(gx, gy);
    let list = this.cells.get(k);
    if (!list) this.cells.set(k, (list = []));
    return list;
  }
  /** Boxes overlapping the rectangle; stops (returning null) past `limit`. */
  query(x1: number, y1: number, x2: number, y2: number, limit: number): Set<number> | null {
    const out = new Set<number>();
    const gx0 = Math.floor(x1 / GRID_CELL),
      gx1 = Math.floor(x2 / GRID_CELL);
    const gy0 = Math.floor(y1 / GRID_CELL),
      gy1 = Math.floor(y2 / GRID_CELL);
    if ((gx1 - gx0 + 1) * (gy1 - gy0 + 1) > 4 * this.cells.size) {
      // Zoomed far out: every box is a candidate, walking cells would be slower.
      if (this.view.boxes.length > limit) {
        let count = 0;
        for (let i = 0; i < this.view.boxes.length; i++)
          if (this.overlaps(i, x1, y1, x2, y2) && ++count > limit) return null;
      }
      for (let i = 0; i < this.view.boxes.length; i++) if (this.overlaps(i, x1, y1, x2, y2)) out.add(i);
      return out;
    }
    for (let gx = gx0; gx <= gx1; gx++) {
      for (let gy = gy0; gy <= gy1; gy++) {
        for (const i of this.cells.get(this.key(gx, gy)) ?? []) {
          if (!out.has(i) && this.overlaps(i, x1, y1, x2, y2)) {
            out.add(i);
            if (out.size > limit) return null;
          }
        }
      }
    }
    return out;
  }
  overlaps(i: number, x1: number, y1: number, x2: number, y2: number): boolean {
    const b = this.view.boxes[i];
    const x = this.layout.x[i],
      y = this.layout.y[i];
    return x + b.width / 2 >= x1 && x - b.width / 2 <= x2 && y + b.height / 2 >= y1 && y - b.height / 2 <= y2;
  }
}
