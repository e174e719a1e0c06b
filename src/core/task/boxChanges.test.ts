/**
 * Boxes found, moved, lost and added (boxChanges): a hand-computed case, and an independent count written here (an
 * IoU matrix from interval overlaps, quantized boxes taken best score first) on random boxes, to 1e-6.
 */
import { describe, expect, it } from 'vitest';
import { addChanges, boxChanges, MATCH_IOU, MOVED_IOU, NO_CHANGES } from './boxChanges.ts';
import type { Box } from './boxes.ts';
import { box } from '../../../tests/helpers/boxes.ts';

/** The same rule counted another way: overlap of intervals, an IoU matrix, then the greedy match. */
function independent(float: Box[], quant: Box[], threshold: number) {
  const overlap = (a1: number, a2: number, b1: number, b2: number) => Math.max(0, Math.min(a2, b2) - Math.max(a1, b1));
  const iou = (a: Box, b: Box) => {
    const inter = overlap(a.x1, a.x2, b.x1, b.x2) * overlap(a.y1, a.y2, b.y1, b.y2);
    const areas = (a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1);
    return inter > 0 ? inter / (areas - inter) : 0;
  };
  const refs = float.filter((f) => f.score >= threshold);
  const tests = quant.filter((q) => q.score >= threshold);
  const order = tests.map((_, i) => i).sort((a, b) => tests[b].score - tests[a].score);
  const matrix = order.map((qi) => refs.map((r) => (r.label === tests[qi].label ? iou(r, tests[qi]) : 0)));
  const used = new Set<number>();
  let found = 0;
  let moved = 0;
  let iouSum = 0;
  for (const row of matrix) {
    let pick = -1;
    for (let r = 0; r < row.length; r++)
      if (!used.has(r) && row[r] >= MATCH_IOU && (pick < 0 || row[r] >= row[pick])) pick = r;
    if (pick < 0) continue;
    used.add(pick);
    found++;
    iouSum += row[pick];
    if (row[pick] < MOVED_IOU) moved++;
  }
  return { reference: refs.length, found, moved, lost: refs.length - found, added: tests.length - found, iouSum };
}

describe('boxes found, moved, lost and added', () => {
  it('hand-computed: one kept, one moved (IoU 2/3), one lost to another class, one added; below the score ignored', () => {
    const float = [
      box(0, 0, 10, 10, 0.9, 0),
      box(20, 20, 30, 30, 0.8, 0),
      box(50, 50, 60, 60, 0.7, 1),
      box(0, 0, 10, 10, 0.2, 2),
    ];
    const quant = [
      box(0, 0, 10, 10, 0.95, 0),
      // Overlap 8 × 10 = 80 of 100 + 100 − 80 = 120: IoU 2/3, found but moved.
      box(22, 20, 32, 30, 0.6, 0),
      // Where the class-1 box was, but class 0: the class-1 box is lost and this one added.
      box(50, 50, 60, 60, 0.5, 0),
      box(100, 100, 110, 110, 0.1, 1),
    ];
    const c = boxChanges(float, quant, 0.3);
    expect(c).toEqual({ reference: 3, found: 2, moved: 1, lost: 1, added: 1, iouSum: expect.closeTo(1 + 2 / 3, 12) });
    expect(addChanges(NO_CHANGES, c)).toEqual(c);
    // The float boxes against themselves: every one found in place.
    expect(boxChanges(float, float, 0.3)).toEqual({ reference: 3, found: 3, moved: 0, lost: 0, added: 0, iouSum: 3 });
  });

  it('matches the independent count to 1e-6 on random jittered boxes', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let trial = 0; trial < 50; trial++) {
      const float: Box[] = [];
      const quant: Box[] = [];
      for (let k = 0; k < 12; k++) {
        const x = random() * 200;
        const y = random() * 200;
        const w = 5 + random() * 40;
        const h = 5 + random() * 40;
        const label = Math.floor(random() * 3);
        float.push(box(x, y, x + w, y + h, random(), label));
        if (random() < 0.8) {
          const j = () => (random() - 0.5) * 0.4 * w;
          const l = random() < 0.9 ? label : (label + 1) % 3;
          quant.push(box(x + j(), y + j(), x + w + j(), y + h + j(), random(), l));
        }
        if (random() < 0.2) quant.push(box(random() * 200, random() * 200, 210, 210, random(), label));
      }
      const got = boxChanges(float, quant, 0.3);
      const want = independent(float, quant, 0.3);
      expect({ ...got, iouSum: 0 }).toEqual({ ...want, iouSum: 0 });
      expect(Math.abs(got.iouSum - want.iouSum)).toBeLessThan(1e-6);
    }
  });
});
