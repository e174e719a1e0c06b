/**
 * Task figures as targets for the ladder and its searches (`--target map50:0.95`, `--target map:0.6`,
 * `--target top1:0.99` with labels, `--max-drop 1%`): the figures of an evaluation named as the ladder
 * names its metrics, against the labels when there are some (the quantized model's figure), else against
 * the float model (agreement), and the drop a user allows read from "1%" or "0.01".
 */
import type { TaskEvaluation } from './taskEvaluation.ts';
import type { TaskKind } from './heads.ts';
import { TaskLabelError } from './errors.ts';

/** Ladder metric names of the task figures: mAP@0.5, mAP@0.5:0.95, mIoU (top1 with labels: accuracy). */
export const TASK_TARGET_METRICS = ['map50', 'map', 'miou'] as const;

/** The figure a `--max-drop` is on, per task, unless the target names another. */
export const DEFAULT_TASK_METRIC: Readonly<Record<TaskKind, string>> = {
  detect: 'map',
  classify: 'top1',
  segment: 'miou',
  text: 'sequence',
};

/** The evaluation's figures by ladder metric name: the quantized model against labels if any, else against the float model. */
export function taskTargetFigures(t: TaskEvaluation): Record<string, number> {
  const f = t.labels ? t.labels.quantized : t.agreement;
  const out: Record<string, number> = {};
  if (f.map50 !== undefined) out.map50 = f.map50;
  if (f.map5095 !== undefined) out.map = f.map5095;
  if (f.miou !== undefined) out.miou = f.miou;
  // Without labels, top-1 agreement is the output metric the ladder already has; with labels it is accuracy.
  if (t.labels && f.top1 !== undefined) out.top1 = f.top1;
  return out;
}

/** The float model's figure against the labels, by ladder metric name (what --max-drop is measured from). */
export function floatLabelFigures(t: TaskEvaluation): Record<string, number> {
  if (!t.labels) throw new TaskLabelError('--max-drop is measured against labels: give --labels');
  const f = t.labels.float;
  const out: Record<string, number> = {};
  if (f.map50 !== undefined) out.map50 = f.map50;
  if (f.map5095 !== undefined) out.map = f.map5095;
  if (f.miou !== undefined) out.miou = f.miou;
  if (f.top1 !== undefined) out.top1 = f.top1;
  return out;
}

/** "1%" → 0.01, "0.01" → 0.01; a drop outside 0…1 is refused. */
export function parseMaxDrop(text: string): number {
  const t = text.trim();
  const v = t.endsWith('%') ? Number(t.slice(0, -1)) / 100 : Number(t);
  if (t === '' || t === '%' || !Number.isFinite(v) || v < 0 || v > 1)
    throw new TaskLabelError(`--max-drop "${text}": give a share such as 1% or 0.01`);
  return v;
}
