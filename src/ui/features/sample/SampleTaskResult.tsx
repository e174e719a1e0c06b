/**
 * The sample's task result on its own card: what a text detector's user judges it by, the text boxes. The figures
 * against the float model's boxes (found, lost, added; mAP) and the held-out scenes one at a time, worst agreement
 * first, the float model's boxes beside the quantized model's (the report's own picture markup, core/report/
 * taskSection.ts), with Previous and Next. The evaluation screen below has every scene and figure.
 */
import { useState } from 'react';
import type { ReportTask } from '../../../core/report/index.ts';
import { boxChanges, taskFigureRows, taskPicture } from '../../../core/report/taskSection.ts';

const pct = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '—' : `${(v * 100).toFixed(1)} %`);

export function SampleTaskResult({ task }: { task: ReportTask }) {
  const [shown, setShown] = useState(0);
  const count = task.pictures.length;
  if (count === 0) return null;
  const k = Math.min(shown, count - 1);
  const figures = taskFigureRows(task.task, task.agreement).slice(0, 2);
  return (
    <section className="sample-run__task" aria-labelledby="sample-task-title" data-testid="sample-task">
      <h3 id="sample-task-title" className="sample-run__task-title">
        What the detector finds on the held-out scenes: the float model&apos;s text boxes beside the quantized
        model&apos;s
      </h3>
      <div className="small" dangerouslySetInnerHTML={{ __html: boxChanges(task) }} />
      <p className="small" data-testid="sample-task-figures">
        {figures.map(([label, value], i) => (
          <span key={label}>
            {i > 0 && ' · '}
            {label} <strong>{pct(value)}</strong>
          </span>
        ))}{' '}
        <span className="muted">(the quantized model&apos;s boxes scored against the float model&apos;s)</span>
      </p>
      <div className="sample-run__task-nav">
        <button
          type="button"
          className="button button--small"
          onClick={() => setShown(k - 1)}
          disabled={k === 0}
          data-testid="sample-task-previous"
        >
          Previous
        </button>
        <span className="small" aria-live="polite" data-testid="sample-task-at">
          Scene {k + 1} of {count}, worst agreement first
        </span>
        <button
          type="button"
          className="button button--small"
          onClick={() => setShown(k + 1)}
          disabled={k === count - 1}
          data-testid="sample-task-next"
        >
          Next
        </button>
      </div>
      <div
        className="sample-run__task-picture"
        data-testid="sample-task-picture"
        dangerouslySetInnerHTML={{ __html: taskPicture(task, k, 'sample-photo') }}
      />
    </section>
  );
}
