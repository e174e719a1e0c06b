/**
 * Boxes from YuNet's heads (libfacedetection, OpenCV's FaceDetectorYN): per stride s of 8/16/32,
 * outputs cls_s and obj_s [1, cells, 1] (already sigmoid) and bbox_s [1, cells, 4]; cell k sits at
 * column k mod (W/s), row k div (W/s); score √(cls·obj) (each clipped to 0–1); centre (col + dx)·s,
 * (row + dy)·s, size e^dw·s × e^dh·s, as OpenCV decodes them. Then NMS. Pixels of the input.
 */
import type { Box } from './boxes.ts';
import type { DetectionParams } from './heads.ts';
import { nonMaxSuppression } from './nms.ts';
import { TaskHeadError } from './errors.ts';
import { outputOf, type InputSize, type RunOutputs } from './outputs.ts';

const clip01 = (v: number) => Math.min(1, Math.max(0, v));

export function decodeYunet(
  outputs: RunOutputs,
  strides: readonly number[],
  input: InputSize,
  p: DetectionParams,
): Box[] {
  const out: Box[] = [];
  for (const s of strides) {
    const cols = Math.floor(input.width / s);
    const rows = Math.floor(input.height / s);
    const per = (name: string, width: number) =>
      outputOf(outputs, name, `[1, cells, ${width}]`, (d) => d[d.length - 1] === width);
    const cls = per(`cls_${s}`, 1);
    const obj = per(`obj_${s}`, 1);
    const bbox = per(`bbox_${s}`, 4);
    const cells = cls.data.length;
    if (cells !== cols * rows || obj.data.length !== cells || bbox.data.length !== cells * 4) {
      throw new TaskHeadError(
        `YuNet's stride-${s} outputs hold ${cells} cells; a ${input.width}×${input.height} input has ${cols * rows}`,
      );
    }
    for (let k = 0; k < cells; k++) {
      const score = Math.sqrt(clip01(cls.data[k]) * clip01(obj.data[k]));
      if (!(score >= p.minScore)) continue;
      const col = k % cols;
      const row = Math.floor(k / cols);
      const cx = (col + bbox.data[k * 4]) * s;
      const cy = (row + bbox.data[k * 4 + 1]) * s;
      const w = Math.exp(bbox.data[k * 4 + 2]) * s;
      const h = Math.exp(bbox.data[k * 4 + 3]) * s;
      out.push({ x1: cx - w / 2, y1: cy - h / 2, x2: cx + w / 2, y2: cy + h / 2, score, label: 0 });
    }
  }
  return nonMaxSuppression(out, p.nmsIou, p.maxDetections);
}
