/**
 * The sample's one-click run, above the steps: what it does (its own drawn images, its own
 * preprocessing), the five stages with the one running highlighted and its progress, Cancel, a
 * failure named with its step, and at the end the time it took, the headline cosine, the quantized
 * model's download, the text boxes float against quantized (SampleTaskResult: what a detector's user judges it by)
 * and a jump to the report (which it scrolls to by itself when the run ends). It names the quantization it runs:
 * the settings measured best on this model, not the page's default preset.
 * It shows while the sample is open or a run is under way, and is nothing otherwise.
 */
import { useEffect, useRef } from 'react';
import { formatCosine } from '../../../core/report/htmlText.ts';
import { ErrorCallout } from '../../components/ErrorCallout.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { useObjectUrl } from '../../components/useObjectUrl.ts';
import { useStudio, type SampleStage } from '../../store/index.ts';
import { sampleService } from '../../services/sampleService.ts';
import { SAMPLE_MODEL } from '../../store/modelSources.ts';
import { resultTargets } from '../evaluation/targets.ts';
import { DownloadLink } from '../../components/DownloadLink.tsx';
import { SampleTaskResult } from './SampleTaskResult.tsx';
import './sample.css';

const STAGES: readonly [SampleStage, string][] = [
  ['open', 'Open the model'],
  ['images', 'Draw the text scenes'],
  ['calibrate', 'Calibrate'],
  ['quantize', 'Quantize'],
  ['evaluate', 'Evaluate on the held-out scenes'],
];

/** Scrolls the evaluation report into view and moves the focus there. */
function showReport(): void {
  const report = document.querySelector<HTMLElement>('[data-testid="eval-result"]');
  if (!report) return;
  report.scrollIntoView({ block: 'start' });
  report.setAttribute('tabindex', '-1');
  report.focus({ preventScroll: true });
}

function StageProgress({ stage }: { stage: SampleStage }) {
  const calibration = useStudio((s) => s.calibration.progress);
  const evaluation = useStudio((s) => s.evaluation.progress);
  const p = stage === 'calibrate' ? calibration : stage === 'evaluate' ? evaluation : null;
  return p && p.total > 0 ? (
    <span className="muted small" data-testid="sample-stage-progress">
      {' '}
      {p.done} / {p.total}
    </span>
  ) : null;
}

export function SampleRunCard() {
  const sample = useStudio((s) => s.sample);
  const isSample = useStudio((s) => s.model.fileName === sampleService.fileName);
  const quantized = useStudio((s) => s.run.result);
  const cosine = useStudio((s) => s.evaluation.result?.report.fidelity.meanCosine ?? null);
  const task = useStudio((s) => s.evaluation.result?.report.task ?? null);
  const ladder = useStudio((s) => s.recovery.ladder);
  const suggestTarget = useStudio((s) => s.evaluation.suggest.target);
  const target = resultTargets({ recovery: { ladder }, evaluation: { suggest: { target: suggestTarget } } }).cosine;
  const meets = cosine !== null && cosine >= target.value;
  const quantizeSample = useStudio((s) => s.quantizeSample);
  const cancel = useStudio((s) => s.cancelSample);
  const dismiss = useStudio((s) => s.dismissSampleError);
  const url = useObjectUrl(sample.status === 'done' ? quantized?.blob : undefined);
  const shown = useRef(false);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const running = sample.status === 'running';

  // The click on the empty page's "Quantize the sample" removes that button once the model is open: the focus would
  // fall to the page's top, and a keyboard user would tab through everything to reach Cancel. It goes to Cancel.
  useEffect(() => {
    const lost = !document.activeElement || document.activeElement === document.body;
    if (running && lost) cancelButton.current?.focus();
  }, [running, sample.stage, isSample]);

  useEffect(() => {
    if (sample.status !== 'done') {
      shown.current = false;
      return;
    }
    if (shown.current) return;
    shown.current = true;
    // The report is rendered by the evaluation screen, loaded lazily: wait for it.
    let tries = 0;
    const timer = setInterval(() => {
      if (document.querySelector('[data-testid="eval-result"]') || ++tries > 50) {
        clearInterval(timer);
        showReport();
      }
    }, 100);
    return () => clearInterval(timer);
  }, [sample.status]);

  if (!isSample && sample.status !== 'running' && sample.status !== 'error') return null;
  const at = sample.stage ? STAGES.findIndex(([s]) => s === sample.stage) : -1;
  const { calibration, heldOut } = sampleService.counts;
  const settings = sampleService.settings;

  return (
    <section
      className="card sample-run"
      aria-labelledby="sample-run-title"
      data-testid="sample-run"
      data-status={sample.status}
      data-stage={sample.stage ?? ''}
    >
      <h2 id="sample-run-title" className="card__title">
        The sample: {SAMPLE_MODEL.label}
      </h2>
      <p className="muted small">
        PaddleOCR's text detector, with {calibration} text scenes drawn in this page to calibrate it and {heldOut}{' '}
        others, with different words, to judge it; its preprocessing is PaddleOCR's (BGR, ImageNet mean and std) at{' '}
        {sampleService.size.width}×{sampleService.size.height}. It is quantized as measured best for this model:{' '}
        <strong data-testid="sample-settings">
          {settings.preset}, {settings.perChannel ? 'per-channel' : 'per-tensor'} weights, {settings.calibrationMethod}{' '}
          ranges
        </strong>{' '}
        (held out, it keeps the text boxes where the page&apos;s default preset, XINT8 for the NPU, loses some; choose
        another preset below and quantize again to compare).
      </p>
      {(running || (sample.full && sample.status !== 'idle')) && (
        <ol className="sample-run__stages" aria-label="Steps of the sample run">
          {STAGES.map(([stage, label], i) => {
            const state =
              sample.status === 'done' || i < at ? 'done' : i === at ? (running ? 'running' : sample.status) : 'todo';
            return (
              <li
                key={stage}
                className={`sample-run__stage sample-run__stage--${state}`}
                data-testid={`sample-stage-${stage}`}
                data-state={state}
                aria-current={state === 'running' ? 'step' : undefined}
              >
                {state === 'running' ? (
                  <Spinner size={12} />
                ) : (
                  <span className="sample-run__mark" aria-hidden="true">
                    {state === 'done' ? '✓' : state === 'cancelled' || state === 'error' ? '✕' : i + 1}
                  </span>
                )}
                {label}
                {state === 'running' && <StageProgress stage={stage} />}
                {(state === 'cancelled' || state === 'error') && (
                  <span className="sample-run__stopped">{state === 'cancelled' ? 'cancelled' : 'failed'}</span>
                )}
              </li>
            );
          })}
        </ol>
      )}
      <div className="step__actions">
        {running ? (
          <button type="button" className="button" onClick={cancel} data-testid="sample-cancel" ref={cancelButton}>
            Cancel
          </button>
        ) : (
          <button
            type="button"
            className={sample.status === 'done' ? 'button' : 'button button--primary'}
            onClick={() => void quantizeSample()}
            data-testid="sample-quantize"
          >
            {sample.status === 'done' ? 'Run the sample again' : 'Quantize the sample'}
          </button>
        )}
        {sample.status === 'cancelled' && (
          <span className="muted small" data-testid="sample-cancelled">
            Cancelled; the steps done so far are kept below.
          </span>
        )}
        {sample.status === 'done' && (
          <>
            <span className="small" data-testid="sample-done">
              Done in {sample.seconds?.toFixed(1)} s
              {cosine !== null && (
                <>
                  : mean output cosine <strong>{formatCosine(cosine)}</strong> on the held-out scenes,{' '}
                  <span data-testid="sample-verdict" data-meets={meets ? 'true' : 'false'}>
                    {meets ? 'meets' : 'below'} the target ≥ {target.value} (
                    {target.source === 'quark' ? "Quark's threshold" : 'yours'})
                  </span>
                </>
              )}
              .
            </span>
            {url && quantized && (
              <DownloadLink href={url} fileName={quantized.fileName} testId="sample-download-model" />
            )}
            <button type="button" className="button" onClick={showReport} data-testid="sample-show-report">
              {meets ? 'Go to the report' : 'See what to try next'}
            </button>
          </>
        )}
      </div>
      {sample.status === 'done' && task && <SampleTaskResult task={task} />}
      {sample.status === 'error' && sample.error && (
        <ErrorCallout
          error={sample.error}
          testId="sample-error"
          title={`The sample stopped at "${STAGES[Math.max(0, at)][1]}"`}
          onDismiss={dismiss}
        />
      )}
    </section>
  );
}
