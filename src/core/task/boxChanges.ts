/**
 * What happened to the float model's boxes in the quantized model, at the score a box counts as found:
 * each quantized box (best score first) takes the unmatched float box of its class with the highest
 * IoU ≥ 0.5. Matched: found (and moved when their IoU is under MOVED_IOU); float boxes left over:
 * lost; quantized boxes left over: added.
 */
import { boxIoU, type Box } from './boxes.ts';

export const MATCH_IOU = 0.5;
export const MOVED_IOU = 0.75;

export interface BoxChanges {
  /** Float boxes at or above the score threshold. */
  readonly reference: number;
  readonly found: number;
  readonly moved: number;
  readonly lost: number;
  readonly added: number;
  /** Sum of the IoUs of found boxes (mean = iouSum / found). */
  readonly iouSum: number;
}

export const NO_CHANGES: BoxChanges = { reference: 0, found: 0, moved: 0, lost: 0, added: 0, iouSum: 0 };

export function boxChanges(float: readonly Box[], quant: readonly Box[], scoreThreshold: number): BoxChanges {
  const ref = float.filter((b) => b.score >= scoreThreshold);
  const test = quant.filter((b) => b.score >= scoreThreshold).sort((a, b) => b.score - a.score);
  const taken = new Uint8Array(ref.length);
  let found = 0,
    moved = 0,
    iouSum = 0;
  for (const q of test) {
    let best = -1;
    let bestIoU = MATCH_IOU;
    ref.forEach((f, i) => {
      if (taken[i] || f.label !== q.label) return;
      const iou = boxIoU(f, q);
      if (iou >= bestIoU) {
        bestIoU = iou;
        best = i;
      }
    });
    if (best < 0) continue;
    taken[best] = 1;
    found++;
    iouSum += bestIoU;
    if (bestIoU < MOVED_IOU) moved++;
  }
  return { reference: ref.length, found, moved, lost: ref.length - found, added: test.length - found, iouSum };
}

export function addChanges(a: BoxChanges, b: BoxChanges): BoxChanges {
  return {
    reference: a.reference + b.reference,
    found: a.found + b.found,
    moved: a.moved + b.moved,
    lost: a.lost + b.lost,
    added: a.added + b.added,
    iouSum: a.iouSum + b.iouSum,
  };
}
