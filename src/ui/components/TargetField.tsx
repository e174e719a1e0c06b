/**
 * A search's target on the page: the metric (the output cosine, PSNR, top-1, CTC sequences, or a task figure:
 * mAP@0.5, mAP@0.5:0.95, mIoU through the chosen task head) and the figure to reach. One control for the ladder, the
 * exclusion search and mixed precision, so they offer the same choices and say them the same way; each search reads
 * the target with the core's one reading (core/recovery/targetMeasure.ts).
 */
import { LADDER_METRICS, TASK_LADDER_METRICS, type LadderMetric } from '../../core/recovery/ladder.ts';
import { describeHead, type TaskHead } from '../../core/task/heads.ts';
import { NumberField } from './NumberField.tsx';

export const METRIC_LABEL: Record<LadderMetric, string> = {
  cosine: 'output cosine',
  psnr: 'PSNR (dB)',
  top1: 'top-1 agreement',
  sequence: 'sequences decoded alike (CTC)',
  decision: 'decisions alike (a probability at 0.5)',
  map50: 'task: mAP@0.5 of the boxes',
  map: 'task: mAP@0.5:0.95 of the boxes',
  miou: 'task: mIoU of the masks',
};

/** The decision target as notes on the page name it (the CLI says `--target decision:<share>`). */
export const DECISION_TARGET = `the target “${METRIC_LABEL.decision}”`;

/** The value a metric's target starts at when chosen. */
export const METRIC_START: Record<LadderMetric, number> = {
  cosine: 0.99,
  psnr: 30,
  top1: 0.95,
  sequence: 0.9,
  decision: 0.95,
  map50: 0.9,
  map: 0.8,
  miou: 0.9,
};

/** The values a target may take, as the core reads them (parseLadderTarget): a cosine above −1, a share 0…1, any PSNR. */
const TARGET_RANGE: Record<LadderMetric, { min?: number; max?: number; above?: boolean }> = {
  cosine: { min: -1, above: true, max: 1 },
  psnr: {},
  top1: { min: 0, max: 1 },
  sequence: { min: 0, max: 1 },
  decision: { min: 0, max: 1 },
  map50: { min: 0, max: 1 },
  map: { min: 0, max: 1 },
  miou: { min: 0, max: 1 },
};

export const isTaskMetric = (m: string): boolean => (TASK_LADDER_METRICS as readonly string[]).includes(m);

export function TargetField({
  metric,
  value,
  onChange,
  head,
  where,
  metrics = LADDER_METRICS,
  disabled,
  label = 'Target',
  testIds,
}: {
  metric: LadderMetric;
  value: number;
  onChange(target: { metric: LadderMetric; value: number }): void;
  /** The task head the page judges with (a task metric reads through it); null when none is chosen or recognised. */
  head: TaskHead | null;
  /** The images the figure is measured on, as the note says it ("the evaluation images"). */
  where: string;
  metrics?: readonly LadderMetric[];
  disabled?: boolean;
  /** The metric's label ("Target", or "Metric" inside a fieldset that says target). */
  label?: string;
  testIds: { metric: string; value: string; head: string };
}) {
  return (
    <>
      <label className="field field--inline">
        <span className="field__label">{label}</span>
        <select
          className="select"
          value={metric}
          disabled={disabled}
          onChange={(e) => {
            const m = e.currentTarget.value as LadderMetric;
            onChange({ metric: m, value: METRIC_START[m] });
          }}
          data-testid={testIds.metric}
        >
          {metrics.map((m) => (
            <option key={m} value={m}>
              {METRIC_LABEL[m]}
            </option>
          ))}
        </select>
      </label>
      <NumberField
        label="at least"
        step={metric === 'psnr' ? 1 : 0.001}
        {...TARGET_RANGE[metric]}
        what={metric === 'psnr' ? 'a PSNR in dB' : `a ${metric === 'cosine' ? 'cosine' : 'share'}`}
        value={value}
        disabled={disabled}
        onChange={(v) => onChange({ metric, value: v! })}
        testId={testIds.value}
      />
      {isTaskMetric(metric) && (
        <p className="small muted" data-testid={testIds.head} data-has-head={head ? 'true' : 'false'}>
          {head
            ? `Measured on ${where} against the float model's predictions, through the task head of step 6: ${describeHead(head)}.`
            : 'A task figure: choose the task head first (step 6, "Task judged"); the model\'s head was not recognised or "no task" is chosen.'}
        </p>
      )}
    </>
  );
}
