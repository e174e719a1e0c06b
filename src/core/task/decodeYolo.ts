/**
 * Boxes from YOLO grids: YOLOX ([1, cells, 5 + C]: cx, cy, w, h, objectness, class scores; raw exports
 * leave xy as offsets in the cell and wh as logs, decoded here with the stride 8/16/32 grid as YOLOX's
 * demo_postprocess does), YOLOv5 ([1, rows, 5 + C], decoded in pixels) and YOLOv8+ ([1, 4 + C, cells],
 * decoded in pixels, no objectness). Each row keeps its best class (score = objectness × class score),
 * then per-class NMS. Boxes are in the model input's pixels.
 */
import type { Box } from './boxes.ts';
import type { DetectionParams } from './heads.ts';
import { nonMaxSuppression } from './nms.ts';
import { TaskHeadError } from './errors.ts';
import { outputOf, type InputSize, type RunOutputs } from './outputs.ts';

function finish(candidates: Box[], p: DetectionParams): Box[] {
  return nonMaxSuppression(candidates, p.nmsIou, p.maxDetections);
}

function best(data: Float32Array, start: number, count: number, step: number): { label: number; score: number } {
  let label = 0;
  let score = -Infinity;
  for (let c = 0; c < count; c++) {
    const v = data[start + c * step];
    if (v > score) {
      score = v;
      label = c;
    }
  }
  return { label, score };
}

const corners = (cx: number, cy: number, w: number, h: number, score: number, label: number): Box => ({
  x1: cx - w / 2,
  y1: cy - h / 2,
  x2: cx + w / 2,
  y2: cy + h / 2,
  score,
  label,
});

export function decodeYolox(
  outputs: RunOutputs,
  output: string,
  raw: boolean,
  strides: readonly number[],
  input: InputSize,
  p: DetectionParams,
): Box[] {
  // Decoded in the graph, YOLOX's rows read as YOLOv5's: cx, cy, w, h in pixels, objectness, class scores.
  if (!raw) return decodeYolov5(outputs, output, p);
  const t = outputOf(outputs, output, '[1, cells, 5 + classes]', (d) => d.length === 3 && d[0] === 1 && d[2] > 5);
  const [, rows, cols] = t.dims;
  const grid: { gx: number; gy: number; s: number }[] = [];
  for (const s of strides) {
    const h = Math.floor(input.height / s);
    const w = Math.floor(input.width / s);
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) grid.push({ gx: x, gy: y, s });
  }
  if (grid.length !== rows)
    throw new TaskHeadError(
      `output "${output}" has ${rows} rows; a ${input.height}×${input.width} input has ${grid.length} stride ${strides.join('/')} cells: not a raw YOLOX grid at this size`,
    );
  const d = t.data;
  return objectnessRows(d, rows, cols, p, (o, r) => {
    const { gx, gy, s } = grid[r];
    return [(d[o] + gx) * s, (d[o + 1] + gy) * s, Math.exp(d[o + 2]) * s, Math.exp(d[o + 3]) * s];
  });
}

/** Rows of cx, cy, w, h, objectness and class scores: each its best class, scored objectness × class score; `place` gives a row's box. */
function objectnessRows(
  d: Float32Array,
  rows: number,
  cols: number,
  p: DetectionParams,
  place: (offset: number, row: number) => [number, number, number, number],
): Box[] {
  const out: Box[] = [];
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    const { label, score: cls } = best(d, o + 5, cols - 5, 1);
    const score = d[o + 4] * cls;
    if (score >= p.minScore) out.push(corners(...place(o, r), score, label));
  }
  return finish(out, p);
}

export function decodeYolov5(outputs: RunOutputs, output: string, p: DetectionParams): Box[] {
  const t = outputOf(outputs, output, '[1, rows, 5 + classes]', (d) => d.length === 3 && d[0] === 1 && d[2] > 5);
  const [, rows, cols] = t.dims;
  const d = t.data;
  return objectnessRows(d, rows, cols, p, (o) => [d[o], d[o + 1], d[o + 2], d[o + 3]]);
}

export function decodeYolov8(outputs: RunOutputs, output: string, p: DetectionParams): Box[] {
  const t = outputOf(outputs, output, '[1, 4 + classes, cells]', (d) => d.length === 3 && d[0] === 1 && d[1] > 4);
  const [, rows, cells] = t.dims;
  const d = t.data;
  const out: Box[] = [];
  for (let c = 0; c < cells; c++) {
    const { label, score } = best(d, 4 * cells + c, rows - 4, cells);
    if (score >= p.minScore) out.push(corners(d[c], d[cells + c], d[2 * cells + c], d[3 * cells + c], score, label));
  }
  return finish(out, p);
}
