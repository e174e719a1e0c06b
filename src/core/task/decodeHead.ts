/**
 * One run's outputs read through a task head: boxes (in the photo's pixels), class scores, a class
 * map, or a CTC decoding. The one door from raw outputs to task predictions for the CLI, the worker,
 * the report and the searches.
 */
import { argmax, ctcGreedyDecode } from '../metrics/index.ts';
import { toSourceBox, type Box, type InputGeometry } from './boxes.ts';
import { decodeDbText } from './decodeDbText.ts';
import { decodeSsd } from './decodeSsd.ts';
import { decodeYolov5, decodeYolov8, decodeYolox } from './decodeYolo.ts';
import { decodeYunet } from './decodeYunet.ts';
import type { DetectionHead, DetectionParams, TaskHead } from './heads.ts';
import { outputOf, type InputSize, type RunOutputs } from './outputs.ts';

export type Prediction =
  | { readonly task: 'detect'; readonly boxes: readonly Box[] }
  | { readonly task: 'classify'; readonly scores: Float32Array; readonly top: readonly number[] }
  /** Classes per pixel of the output map (height × width, row-major) over the model input. */
  | {
      readonly task: 'segment';
      readonly classes: Int32Array;
      readonly width: number;
      readonly height: number;
      readonly classCount: number;
    }
  | {
      readonly task: 'text';
      readonly labels: readonly number[];
      readonly scores: Float32Array;
      readonly dims: readonly number[];
    };

/** Boxes in the model input's pixels. */
export function decodeBoxes(head: DetectionHead, outputs: RunOutputs, input: InputSize, p: DetectionParams): Box[] {
  switch (head.kind) {
    case 'yolox':
      return decodeYolox(outputs, head.output, head.raw, head.strides, input, p);
    case 'yolov5':
      return decodeYolov5(outputs, head.output, p);
    case 'yolov8':
      return decodeYolov8(outputs, head.output, p);
    case 'ssd':
      return decodeSsd(outputs, head.scores, head.boxes, head.encoding, input, p);
    case 'yunet':
      return decodeYunet(outputs, head.strides, input, p);
    case 'db-text':
      return decodeDbText(outputs, head.output, head, input, p);
  }
}

/** The top `k` classes of a score row, best first (ties to the lower index, as argmax). */
export function topClasses(scores: Float32Array, k: number): number[] {
  const order = Array.from(scores.keys()).sort((a, b) => scores[b] - scores[a] || a - b);
  return order.slice(0, k);
}

/** One run's outputs as the head's prediction; boxes mapped to the photo through `geometry`. */
export function decodeHead(head: TaskHead, outputs: RunOutputs, geometry: InputGeometry & InputSize): Prediction {
  if (head.task === 'detect') {
    return {
      task: 'detect',
      boxes: decodeBoxes(head.head, outputs, geometry, head.params).map((b) => toSourceBox(b, geometry)),
    };
  }
  if (head.task === 'classify') {
    const t = outputOf(
      outputs,
      head.output,
      '[1, classes] (or [1, classes, 1, 1])',
      (d) =>
        (d.length >= 1 && d.slice(0, -1).every((x) => x === 1)) ||
        (d.length === 4 && d[0] === 1 && d[2] === 1 && d[3] === 1),
    );
    return { task: 'classify', scores: t.data, top: topClasses(t.data, 5) };
  }
  if (head.task === 'segment') {
    const t = outputOf(outputs, head.output, '[1, classes, H, W]', (d) => d.length === 4 && d[0] === 1);
    const [, c, h, w] = t.dims;
    const classes = new Int32Array(h * w);
    const plane = h * w;
    for (let k = 0; k < plane; k++) {
      if (c === 1) classes[k] = t.data[k] >= head.maskThreshold ? 1 : 0;
      else {
        let best = 0;
        for (let j = 1; j < c; j++) if (t.data[j * plane + k] > t.data[best * plane + k]) best = j;
        classes[k] = best;
      }
    }
    return { task: 'segment', classes, width: w, height: h, classCount: Math.max(2, c) };
  }
  const t = outputOf(outputs, head.output, '[1, steps, classes]', (d) => d.length === 3 && d[0] === 1);
  const [, steps, classes] = t.dims;
  return { task: 'text', labels: ctcGreedyDecode(t.data, 0, steps, classes), scores: t.data, dims: t.dims };
}

export { argmax };
