/**
 * Text boxes from a DB (differentiable binarization) probability map, PaddleOCR's detector: the map
 * [1, 1, H, W] binarised at `binaryThreshold`, its 4-connected regions each a box scored by the mean
 * probability over the region, dropped under `minSize` pixels on a side, then grown by DB's unclip
 * distance (area × ratio / perimeter) on every side. PaddleOCR fits a rotated rectangle to each
 * contour; this decoder keeps the axis-aligned box of the region, which is what COCO-style AP scores.
 * Pixels of the input (the map is scaled to it when their sizes differ).
 */
import type { Box } from './boxes.ts';
import type { DetectionParams } from './heads.ts';
import { nonMaxSuppression } from './nms.ts';
import { outputOf, type InputSize, type RunOutputs } from './outputs.ts';

export interface DbTextOptions {
  readonly binaryThreshold: number;
  readonly unclipRatio: number;
  readonly minSize: number;
}

export function decodeDbText(
  outputs: RunOutputs,
  output: string,
  o: DbTextOptions,
  input: InputSize,
  p: DetectionParams,
): Box[] {
  const t = outputOf(
    outputs,
    output,
    'a probability map [1, 1, H, W]',
    (d) => d.length === 4 && d[0] === 1 && d[1] === 1,
  );
  const [, , h, w] = t.dims;
  const map = t.data;
  const region = new Int32Array(w * h).fill(-1);
  const stack: number[] = [];
  const sx = input.width / w;
  const sy = input.height / h;
  const out: Box[] = [];
  let count = 0;
  for (let start = 0; start < w * h; start++) {
    if (region[start] !== -1 || !(map[start] > o.binaryThreshold)) continue;
    let x1 = w,
      y1 = h,
      x2 = -1,
      y2 = -1,
      sum = 0,
      pixels = 0;
    region[start] = count;
    stack.push(start);
    while (stack.length) {
      const k = stack.pop()!;
      const x = k % w;
      const y = (k - x) / w;
      sum += map[k];
      pixels++;
      if (x < x1) x1 = x;
      if (x > x2) x2 = x;
      if (y < y1) y1 = y;
      if (y > y2) y2 = y;
      const visit = (n: number) => {
        if (region[n] === -1 && map[n] > o.binaryThreshold) {
          region[n] = count;
          stack.push(n);
        }
      };
      if (x > 0) visit(k - 1);
      if (x < w - 1) visit(k + 1);
      if (y > 0) visit(k - w);
      if (y < h - 1) visit(k + w);
    }
    count++;
    const bw = x2 + 1 - x1;
    const bh = y2 + 1 - y1;
    if (Math.min(bw, bh) < o.minSize) continue;
    const score = sum / pixels;
    if (!(score >= p.minScore)) continue;
    const grow = (bw * bh * o.unclipRatio) / (2 * (bw + bh));
    out.push({
      x1: Math.max(0, x1 - grow) * sx,
      y1: Math.max(0, y1 - grow) * sy,
      x2: Math.min(w, x2 + 1 + grow) * sx,
      y2: Math.min(h, y2 + 1 + grow) * sy,
      score,
      label: 0,
    });
  }
  return nonMaxSuppression(out, p.nmsIou, p.maxDetections);
}
