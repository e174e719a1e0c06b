/**
 * Moving the selection on the graph with the arrow keys, along its edges: up to a producer, down to a consumer (the
 * one nearest in x when there are several), left and right among siblings (the other consumers of its producers and
 * the other producers of its consumers), and, where a box has no sibling that side, to the next box of the same row.
 * Pure (the view's edges and the layout's positions): tested in Node.
 */
import type { LayoutResult } from '../../../core/graph/layeredLayout.ts';
import type { GraphView } from './viewModel.ts';

export type ArrowKey = 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight';

export interface GraphNavigator {
  /** The box the key moves the selection to from `box`, or -1 when there is none that way. */
  step(box: number, key: ArrowKey): number;
}

export function graphNavigator(view: GraphView, layout: LayoutResult): GraphNavigator {
  const n = view.boxes.length;
  const producers: number[][] = Array.from({ length: n }, () => []);
  const consumers: number[][] = Array.from({ length: n }, () => []);
  for (const e of view.edges) {
    if (!producers[e.target].includes(e.source)) producers[e.target].push(e.source);
    if (!consumers[e.source].includes(e.target)) consumers[e.source].push(e.target);
  }
  let rows: Map<number, number[]> | null = null; // boxes by rank, left to right; built on first use
  const rowOf = (box: number) => {
    if (!rows) {
      rows = new Map();
      for (let b = 0; b < n; b++) {
        const r = layout.rank[b];
        let row = rows.get(r);
        if (!row) rows.set(r, (row = []));
        row.push(b);
      }
      for (const row of rows.values()) row.sort((a, b) => layout.x[a] - layout.x[b]);
    }
    return rows.get(layout.rank[box]) ?? [box];
  };
  const nearestInX = (from: number, candidates: Iterable<number>, accept: (dx: number) => boolean = () => true) => {
    let best = -1,
      bestDistance = Infinity;
    for (const c of candidates) {
      if (c === from) continue;
      const dx = layout.x[c] - layout.x[from];
      if (!accept(dx)) continue;
      const distance = Math.abs(dx) + Math.abs(layout.y[c] - layout.y[from]);
      if (distance < bestDistance) [best, bestDistance] = [c, distance];
    }
    return best;
  };
  return {
    step(box, key) {
      if (box < 0 || box >= n) return -1;
      if (key === 'ArrowUp') return nearestInX(box, producers[box]);
      if (key === 'ArrowDown') return nearestInX(box, consumers[box]);
      const side = key === 'ArrowLeft' ? (dx: number) => dx < 0 : (dx: number) => dx > 0;
      const siblings = new Set<number>();
      for (const p of producers[box]) for (const s of consumers[p]) siblings.add(s);
      for (const c of consumers[box]) for (const s of producers[c]) siblings.add(s);
      const sibling = nearestInX(box, siblings, side);
      return sibling >= 0 ? sibling : nearestInX(box, rowOf(box), side);
    },
  };
}
