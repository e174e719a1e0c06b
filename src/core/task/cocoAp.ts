/**
 * Average precision of detections against reference boxes, by COCO's definition (pycocotools'
 * COCOeval, bbox, area "all"): per image and class the detections by descending score (stable), at
 * most `maxDetections`, each matched greedily to the unmatched reference box of highest IoU at or above
 * the threshold (ties to the later box, as COCOeval's loop does; a crowd box may match many and
 * neither counts); per class the detections of all images by descending score (stable, image order),
 * precision made non-increasing from the right, read at the 101 recall points 0, 0.01, …, 1 (0 past
 * the last recall reached), averaged. A class with no reference box has no AP and is left out of the
 * mean. IoU thresholds 0.50, 0.55, …, 0.95 as COCOeval spaces them (numpy's linspace).
 *
 * The references may be labels or the float model's own boxes: this module does not care.
 */
import { boxArea, boxIoU, type Box } from './boxes.ts';

export interface TruthBox extends Box {
  /** A crowd region (COCO iscrowd): matches any number of detections, none of which counts. */
  readonly crowd?: boolean;
}

export interface DetectionImage {
  readonly truth: readonly TruthBox[];
  readonly detections: readonly Box[];
}

export interface ClassAp {
  readonly label: number;
  /** Reference boxes of this class (crowd ones not counted). */
  readonly truths: number;
  readonly detections: number;
  /** AP at each IoU threshold (IOU_THRESHOLDS order); null when the class has no reference box. */
  readonly ap: readonly number[] | null;
  /** AP at 0.5 and the mean over 0.5:0.95; null without reference boxes. */
  readonly ap50: number | null;
  readonly ap5095: number | null;
}

export interface DetectionAp {
  readonly classes: readonly ClassAp[];
  /** Means over the classes that have reference boxes; NaN when none has. */
  readonly map50: number;
  readonly map75: number;
  readonly map5095: number;
}

function linspace(start: number, stop: number, num: number): number[] {
  const step = (stop - start) / (num - 1);
  return Array.from({ length: num }, (_, i) => (i === num - 1 ? stop : i * step + start));
}

export const IOU_THRESHOLDS: readonly number[] = linspace(0.5, 0.95, 10);
export const RECALL_POINTS: readonly number[] = linspace(0, 1, 101);

/** COCO's IoU: against a crowd box, the intersection over the detection's own area. */
function cocoIoU(d: Box, g: TruthBox): number {
  if (!g.crowd) return boxIoU(d, g);
  const w = Math.min(d.x2, g.x2) - Math.max(d.x1, g.x1);
  const h = Math.min(d.y2, g.y2) - Math.max(d.y1, g.y1);
  const a = boxArea(d);
  return w > 0 && h > 0 && a > 0 ? (w * h) / a : 0;
}

interface Scored {
  score: number;
  /** Per IoU threshold: 1 true positive, 0 false positive, −1 ignored (matched a crowd box). */
  outcome: Int8Array;
}

/** One image's detections of one class, matched at every threshold. */
function matchImage(truth: readonly TruthBox[], detections: readonly Box[], maxDetections: number): Scored[] {
  // Non-crowd boxes first, as COCOeval sorts gt by its ignore flag (stable).
  const gt = [...truth.filter((g) => !g.crowd), ...truth.filter((g) => g.crowd)];
  const dt = detections
    .map((d, i) => ({ d, i }))
    .sort((a, b) => b.d.score - a.d.score || a.i - b.i)
    .slice(0, maxDetections)
    .map((x) => x.d);
  const ious = dt.map((d) => gt.map((g) => cocoIoU(d, g)));
  const out: Scored[] = dt.map((d) => ({ score: d.score, outcome: new Int8Array(IOU_THRESHOLDS.length) }));
  IOU_THRESHOLDS.forEach((t, ti) => {
    const taken = new Uint8Array(gt.length);
    dt.forEach((_, di) => {
      let best = Math.min(t, 1 - 1e-10);
      let m = -1;
      for (let gi = 0; gi < gt.length; gi++) {
        if (taken[gi] && !gt[gi].crowd) continue;
        if (m > -1 && !gt[m].crowd && gt[gi].crowd) break;
        if (ious[di][gi] < best) continue;
        best = ious[di][gi];
        m = gi;
      }
      if (m === -1) return;
      taken[m] = 1;
      out[di].outcome[ti] = gt[m].crowd ? -1 : 1;
    });
  });
  return out;
}

/** COCO AP at one threshold from the pooled detections of a class (already in pooled score order). */
function averagePrecision(pooled: readonly Scored[], ti: number, truths: number): number {
  const precision: number[] = [];
  const recall: number[] = [];
  let tp = 0;
  let fp = 0;
  for (const s of pooled) {
    const o = s.outcome[ti];
    if (o === 1) tp++;
    else if (o === 0) fp++;
    else continue;
    recall.push(tp / truths);
    precision.push(tp / (tp + fp)); // COCOeval adds np.spacing(1) against 0/0, which cannot happen here; without it a perfect match is exactly 1
  }
  for (let i = precision.length - 1; i > 0; i--) if (precision[i] > precision[i - 1]) precision[i - 1] = precision[i];
  let sum = 0;
  let pi = 0;
  for (const r of RECALL_POINTS) {
    while (pi < recall.length && recall[pi] < r) pi++;
    if (pi < recall.length) sum += precision[pi];
  }
  return sum / RECALL_POINTS.length;
}

/** COCO AP per class and the means, over images each with its reference boxes and detections. */
export function detectionAp(images: readonly DetectionImage[], maxDetections = 100): DetectionAp {
  const labels = new Set<number>();
  for (const im of images) for (const b of [...im.truth, ...im.detections]) labels.add(b.label);
  const classes: ClassAp[] = [...labels]
    .sort((a, b) => a - b)
    .map((label) => {
      const pooled: Scored[] = [];
      let truths = 0;
      let detections = 0;
      for (const im of images) {
        const truth = im.truth.filter((b) => b.label === label);
        const dets = im.detections.filter((b) => b.label === label);
        truths += truth.filter((g) => !g.crowd).length;
        const matched = matchImage(truth, dets, maxDetections);
        detections += matched.length;
        pooled.push(...matched);
      }
      const order = pooled.map((_, i) => i).sort((a, b) => pooled[b].score - pooled[a].score || a - b);
      const sorted = order.map((i) => pooled[i]);
      if (truths === 0) return { label, truths, detections, ap: null, ap50: null, ap5095: null };
      const ap = IOU_THRESHOLDS.map((_, ti) => averagePrecision(sorted, ti, truths));
      return { label, truths, detections, ap, ap50: ap[0], ap5095: ap.reduce((a, b) => a + b, 0) / ap.length };
    });
  const scored = classes.filter((c) => c.ap !== null);
  const mean = (f: (c: ClassAp) => number) =>
    scored.length ? scored.reduce((s, c) => s + f(c), 0) / scored.length : NaN;
  return { classes, map50: mean((c) => c.ap![0]), map75: mean((c) => c.ap![5]), map5095: mean((c) => c.ap5095!) };
}
