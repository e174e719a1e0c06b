/**
 * Mean IoU of class maps, as semantic segmentation is scored: a confusion matrix summed over every
 * pixel of every image (pixels labelled `ignore` left out), per class IoU = TP / (TP + FP + FN), the
 * mean over classes that occur in either map. The reference may be the float model's map or labels.
 */

export interface Confusion {
  readonly classes: number;
  /** counts[reference * classes + test]. */
  readonly counts: Float64Array;
}

export function emptyConfusion(classes: number): Confusion {
  return { classes, counts: new Float64Array(classes * classes) };
}

/** Adds one image's pixels (same length) to the matrix; reference values equal to `ignore` are skipped; `mask` 0 skips a pixel. */
export function addPixels(
  c: Confusion,
  reference: ArrayLike<number>,
  test: ArrayLike<number>,
  ignore = 255,
  mask?: Uint8Array,
): void {
  for (let k = 0; k < reference.length; k++) {
    if (mask && !mask[k]) continue;
    const r = reference[k];
    if (r === ignore) continue;
    const t = test[k];
    if (r < 0 || r >= c.classes || t < 0 || t >= c.classes) continue;
    c.counts[r * c.classes + t]++;
  }
}

export interface ClassIoU {
  readonly label: number;
  readonly iou: number;
}

export function classIoUs(c: Confusion): ClassIoU[] {
  const n = c.classes;
  const out: ClassIoU[] = [];
  for (let k = 0; k < n; k++) {
    const tp = c.counts[k * n + k];
    let row = 0,
      col = 0;
    for (let j = 0; j < n; j++) {
      row += c.counts[k * n + j];
      col += c.counts[j * n + k];
    }
    const union = row + col - tp;
    if (union > 0) out.push({ label: k, iou: tp / union });
  }
  return out;
}

/** Mean IoU over the classes present; NaN when no pixel was counted. */
export function meanIoU(c: Confusion): number {
  const ious = classIoUs(c);
  return ious.length ? ious.reduce((s, x) => s + x.iou, 0) / ious.length : NaN;
}
