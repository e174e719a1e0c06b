/**
 * Boxes as every detector decoder returns them (corners in pixels, a score, a class index), their
 * intersection over union (COCO's: continuous coordinates, no +1), and the mapping from the model's
 * input pixels back to the photo's (undoing a letterbox, crop or stretch: preprocess/resize.ts plans it).
 */
import type { ResizePlan } from '../preprocess/resize.ts';

export interface Box {
  readonly x1: number;
  readonly y1: number;
  readonly x2: number;
  readonly y2: number;
  /** Confidence in [0, 1]; 1 for a labelled box. */
  readonly score: number;
  /** Class index, 0-based, in the model's own numbering. */
  readonly label: number;
}

export function boxArea(b: Box): number {
  return Math.max(0, b.x2 - b.x1) * Math.max(0, b.y2 - b.y1);
}

/** Intersection over union of two boxes; 0 when both are empty. */
export function boxIoU(a: Box, b: Box): number {
  const w = Math.min(a.x2, b.x2) - Math.max(a.x1, b.x1);
  const h = Math.min(a.y2, b.y2) - Math.max(a.y1, b.y1);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  const union = boxArea(a) + boxArea(b) - inter;
  return union > 0 ? inter / union : 0;
}

/** The geometry that maps a model input's pixels to a photo's: what planResize returns, reduced. */
export type InputGeometry = Pick<
  ResizePlan,
  'sourceWidth' | 'sourceHeight' | 'scaledWidth' | 'scaledHeight' | 'offsetX' | 'offsetY'
>;

/** A box in model-input pixels as a box in the photo's pixels, clipped to the photo. */
export function toSourceBox(b: Box, g: InputGeometry): Box {
  const sx = g.sourceWidth / g.scaledWidth;
  const sy = g.sourceHeight / g.scaledHeight;
  const clipX = (v: number) => Math.min(g.sourceWidth, Math.max(0, (v - g.offsetX) * sx));
  const clipY = (v: number) => Math.min(g.sourceHeight, Math.max(0, (v - g.offsetY) * sy));
  return { x1: clipX(b.x1), y1: clipY(b.y1), x2: clipX(b.x2), y2: clipY(b.y2), score: b.score, label: b.label };
}
