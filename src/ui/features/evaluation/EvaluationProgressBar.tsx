/**
 * A running evaluation or search: what phase it is in (decoding the images, comparing the models,
 * which search step), how far along, and Cancel.
 */
import { Spinner } from '../../components/Spinner.tsx';
import { ProgressTrack } from '../../components/ProgressTrack.tsx';
import { exact } from '../../components/format.ts';
import type { EvaluationProgress } from '../../store/evaluationSlice.ts';

const PHASES: Record<EvaluationProgress['phase'], string> = {
  decoding: 'Decoding images',
  'at-default': "Running both models at onnxruntime-web's default options ('all')",
  comparing: "Running both models as written ('basic', every layer)",
  npu: 'Running it as the NPU runs it (float parts in BF16)',
  histograms: 'Histograms of the worst layers',
  searching: 'Measuring',
  parity: 'Running both models on every runtime',
};

export function EvaluationProgressBar({
  progress,
  onCancel,
  testId,
  label,
}: {
  progress: EvaluationProgress | null;
  onCancel: () => void;
  testId: string;
  label: string;
}) {
  const done = progress?.done ?? 0;
  const total = progress?.total ?? 0;
  const percent = total > 0 ? Math.round((done / total) * 100) : 0;
  return (
    <div className="progress" data-testid={testId} aria-live="polite">
      <div className="progress__head">
        <Spinner size={16} />
        <span className="progress__title">
          {progress ? (
            <>
              {progress.step
                ? `Step ${Math.min(progress.step.done + 1, progress.step.total)} of at most ${progress.step.total}: `
                : ''}
              {PHASES[progress.phase]}: {exact(done)} / {exact(total)}
            </>
          ) : (
            `${label}: starting…`
          )}
        </span>
        <button type="button" className="button button--small" onClick={onCancel} data-testid={`${testId}-cancel`}>
          Cancel
        </button>
      </div>
      <ProgressTrack label={label} now={done} max={total || 1} percent={percent} />
    </div>
  );
}
