import { describe, expect, it } from 'vitest';
import { boxIoU } from './boxes.ts';
import { detectionAp, IOU_THRESHOLDS, type DetectionImage } from './cocoAp.ts';
import { nonMaxSuppression } from './nms.ts';
import { seededRandom } from '../seededRandom.ts';
import { box } from '../../../tests/helpers/boxes.ts';

/**
 * An independent COCO AP (no crowd): per image, detections by score take, among unmatched references
 * at IoU ≥ t, the one of highest IoU (the later on ties); interpolated precision at recall r is the
 * highest precision reached at any recall ≥ r, read at r = 0, 0.01, …, 1 (as numpy spaces them).
 */
function referenceAp(images: readonly DetectionImage[], label: number, t: number): number | null {
  const outcomes: { score: number; tp: boolean; order: number }[] = [];
  let truths = 0;
  let order = 0;
  for (const im of images) {
    const gt = im.truth.filter((b) => b.label === label);
    truths += gt.length;
    const dt = im.detections
      .filter((b) => b.label === label)
      .map((d, i) => ({ d, i }))
      .sort((a, b) => b.d.score - a.d.score || a.i - b.i)
      .slice(0, 100);
    const used = new Set<number>();
    for (const { d } of dt) {
      const candidates = gt
        .map((g, gi) => ({ gi, iou: boxIoU(d, g) }))
        .filter((c) => !used.has(c.gi) && c.iou >= Math.min(t, 1 - 1e-10));
      candidates.sort((a, b) => b.iou - a.iou || b.gi - a.gi);
      if (candidates.length) used.add(candidates[0].gi);
      outcomes.push({ score: d.score, tp: candidates.length > 0, order: order++ });
    }
  }
  if (truths === 0) return null;
  outcomes.sort((a, b) => b.score - a.score || a.order - b.order);
  const points: { recall: number; precision: number }[] = [];
  let tp = 0;
  outcomes.forEach((o, k) => {
    if (o.tp) tp++;
    points.push({ recall: tp / truths, precision: tp / (k + 1) });
  });
  let sum = 0;
  for (let i = 0; i <= 100; i++) {
    // numpy's linspace(0, 1, 101), as COCOeval's recall points: i · 0.01, the last exactly 1.
    const r = i === 100 ? 1 : i * 0.01;
    const reach = points.filter((p) => p.recall >= r).map((p) => p.precision);
    sum += reach.length ? Math.max(...reach) : 0;
  }
  return sum / 101;
}

describe('COCO AP (cocoAp.ts)', () => {
  it('hand-computed: TP, FP, TP over two references gives (51 + 50·2/3) / 101 at every threshold', () => {
    const ap = detectionAp([
      {
        truth: [box(0, 0, 10, 10), box(20, 20, 30, 30)],
        detections: [box(0, 0, 10, 10, 0.9), box(50, 50, 60, 60, 0.8), box(20, 20, 30, 30, 0.7)],
      },
    ]);
    expect(ap.map50).toBeCloseTo(253 / 303, 12);
    expect(ap.map5095).toBeCloseTo(253 / 303, 12);
  });

  it('hand-computed: a box at IoU 0.78 counts at 0.50…0.75 only: AP@0.5 1, AP@[.5:.95] 0.6', () => {
    const ap = detectionAp([{ truth: [box(0, 0, 10, 10)], detections: [box(0, 0, 10, 7.8, 0.9)] }]);
    expect(boxIoU(box(0, 0, 10, 10), box(0, 0, 10, 7.8))).toBeCloseTo(0.78, 12);
    expect(ap.map50).toBe(1);
    expect(ap.map5095).toBeCloseTo(0.6, 12);
    expect(ap.map75).toBe(1);
  });

  it('hand-computed: a lost reference halves the reachable recall (AP 51/101), a class without references is left out', () => {
    const ap = detectionAp([
      {
        truth: [box(0, 0, 10, 10), box(20, 20, 30, 30)],
        detections: [box(0, 0, 10, 10, 0.9), box(40, 40, 50, 50, 0.9, 3)],
      },
    ]);
    expect(ap.classes.find((c) => c.label === 3)!.ap).toBeNull();
    expect(ap.map50).toBeCloseTo(51 / 101, 12);
  });

  it('the float boxes against themselves (references at the found score, all boxes ranked) give exactly 1', () => {
    const rnd = seededRandom(5);
    const images: DetectionImage[] = Array.from({ length: 6 }, () => {
      const boxes = Array.from({ length: 30 }, () => {
        const x = rnd() * 300,
          y = rnd() * 300;
        return box(x, y, x + 5 + rnd() * 80, y + 5 + rnd() * 80, rnd(), Math.floor(rnd() * 4));
      });
      const kept = nonMaxSuppression(boxes, 0.45);
      return { truth: kept.filter((b) => b.score >= 0.3), detections: kept };
    });
    const ap = detectionAp(images);
    expect(ap.map50).toBe(1);
    expect(ap.map5095).toBe(1);
    for (const c of ap.classes) if (c.ap) expect(c.ap.every((v) => v === 1)).toBe(true);
  });

  it('matches an independent implementation to 1e-6 on random jittered detections', () => {
    const rnd = seededRandom(17);
    for (let trial = 0; trial < 25; trial++) {
      const images: DetectionImage[] = Array.from({ length: 1 + Math.floor(rnd() * 5) }, () => {
        const truth = Array.from({ length: Math.floor(rnd() * 8) }, () => {
          const x = rnd() * 200,
            y = rnd() * 200;
          return box(x, y, x + 10 + rnd() * 60, y + 10 + rnd() * 60, 1, Math.floor(rnd() * 3));
        });
        const detections = truth
          .filter(() => rnd() > 0.2)
          .map((g) => {
            const j = () => (rnd() - 0.5) * 12;
            return box(
              g.x1 + j(),
              g.y1 + j(),
              g.x2 + j(),
              g.y2 + j(),
              Math.round(rnd() * 20) / 20,
              rnd() > 0.9 ? (g.label + 1) % 3 : g.label,
            );
          });
        for (let k = Math.floor(rnd() * 4); k > 0; k--)
          detections.push(
            box(rnd() * 200, rnd() * 200, 220 + rnd() * 30, 220 + rnd() * 30, rnd(), Math.floor(rnd() * 3)),
          );
        return { truth, detections };
      });
      const ap = detectionAp(images);
      for (const c of ap.classes) {
        IOU_THRESHOLDS.forEach((t, ti) => {
          const ref = referenceAp(images, c.label, t);
          if (ref === null) expect(c.ap).toBeNull();
          else expect(Math.abs(c.ap![ti] - ref)).toBeLessThan(1e-6);
        });
      }
    }
  });

  it('a crowd reference absorbs detections without counting them', () => {
    const ap = detectionAp([
      {
        truth: [box(0, 0, 10, 10), { ...box(100, 100, 200, 200), crowd: true }],
        detections: [box(0, 0, 10, 10, 0.9), box(110, 110, 150, 150, 0.95), box(120, 120, 160, 160, 0.94)],
      },
    ]);
    expect(ap.map50).toBe(1);
  });
});

describe('NMS and IoU', () => {
  it('IoU by hand; NMS keeps the best of overlapping boxes per class only', () => {
    expect(boxIoU(box(0, 0, 10, 10), box(5, 0, 15, 10))).toBeCloseTo(50 / 150, 12);
    expect(boxIoU(box(0, 0, 10, 10), box(10, 0, 20, 10))).toBe(0);
    const kept = nonMaxSuppression(
      [box(0, 0, 10, 10, 0.5), box(1, 0, 11, 10, 0.9), box(1, 0, 11, 10, 0.8, 1), box(30, 30, 40, 40, 0.1)],
      0.45,
    );
    expect(kept.map((b) => b.score)).toEqual([0.9, 0.8, 0.1]);
  });
});
