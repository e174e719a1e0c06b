/**
 * Greedy non-maximum suppression, per class (torchvision's batched_nms, what YOLOX, Ultralytics and
 * OpenCV's face detectors apply): boxes by descending score (stable for ties), each kept unless it
 * overlaps a kept box of its class by more than `iou`; at most `maxDetections` kept, best first.
 */
import { boxIoU, type Box } from './boxes.ts';

export function nonMaxSuppression(boxes: readonly Box[], iou: number, maxDetections = Infinity): Box[] {
  const order = boxes.map((_, i) => i).sort((a, b) => boxes[b].score - boxes[a].score || a - b);
  const kept: Box[] = [];
  for (const i of order) {
    if (kept.length >= maxDetections) break;
    const b = boxes[i];
    if (!kept.some((k) => k.label === b.label && boxIoU(k, b) > iou)) kept.push(b);
  }
  return kept;
}
