/** How many classes a head scores, from the model's output shapes (labels are checked against it). */
import type { TensorSummary } from '../onnx/modelSummary.ts';
import type { TaskHead } from './heads.ts';

export function headClassCount(head: TaskHead, outputs: readonly TensorSummary[]): number | null {
  const shape = (name: string) => outputs.find((o) => o.name === name)?.shape ?? null;
  const n = (d: number | string | undefined) => (typeof d === 'number' ? d : null);
  if (head.task === 'text') return null;
  if (head.classNames) return head.classNames.length;
  if (head.task === 'classify') {
    const s = shape(head.output);
    return s ? n(s.length === 4 ? s[1] : s[s.length - 1]) : null;
  }
  if (head.task === 'segment') {
    const c = n(shape(head.output)?.[1]);
    return c === null ? null : Math.max(2, c);
  }
  const h = head.head;
  switch (h.kind) {
    case 'yolox':
    case 'yolov5': {
      const c = n(shape(h.output)?.[2]);
      return c === null ? null : c - 5;
    }
    case 'yolov8': {
      const c = n(shape(h.output)?.[1]);
      return c === null ? null : c - 4;
    }
    case 'ssd': {
      const c = n(shape(h.scores)?.[2]);
      return c === null ? null : c - 1;
    }
    default:
      return 1;
  }
}
