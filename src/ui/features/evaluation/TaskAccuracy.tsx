/**
 * Task accuracy on the evaluation screen: does the quantized model still do its job. The figures
 * against the float model (mAP and boxes found/lost/moved, top-1/top-5, mIoU, text) and the pictures,
 * worst images first, float and quantized predictions over the same photo side by side. The markup is
 * the HTML report's own section (core/report/taskSection.ts: every name escaped there), so the page and
 * the downloaded report show the same thing.
 */
import type { ReportTask } from '../../../core/report/index.ts';
import { taskSection } from '../../../core/report/taskSection.ts';

const pct = (v: number) => (Number.isNaN(v) ? '—' : `${(v * 100).toFixed(1)}%`);

export function TaskAccuracy({ task }: { task: ReportTask }) {
  const first = task.labels?.figures[0];
  return (
    <>
      {first && (
        <p className="task-labels-figure" data-testid="eval-task-labels">
          Against labels ({first.metric}): float {pct(first.float)} · quantized {pct(first.quantized)} · drop{' '}
          {Number.isNaN(first.drop) ? '—' : `${(first.drop * 100).toFixed(1)} pt`}
        </p>
      )}
      <div
        className="task-accuracy"
        data-testid="eval-task"
        data-task={task.task}
        dangerouslySetInnerHTML={{ __html: taskSection(task) }}
      />
    </>
  );
}
