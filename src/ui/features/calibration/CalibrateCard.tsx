/**
 * The calibration run: the Calibrate button, then a progress bar with images done, pace, time left
 * and the backend (with why it is not a faster one), and Cancel; then what came out (images used,
 * images skipped and why, warnings) and the ranges to download. A cancelled run or an error leaves the
 * page as it was, ready for the next run.
 */
import { useRef } from 'react';
import { Callout } from '../../components/Callout.tsx';
import { ErrorCallout } from '../../components/ErrorCallout.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { JsonFileInput } from '../../components/JsonFileInput.tsx';
import { ProgressTrack } from '../../components/ProgressTrack.tsx';
import { exact, plural } from '../../components/format.ts';
import { useStudio } from '../../store/index.ts';
import { floatModelNeeded, rangesAreCurrent } from '../../store/selectors.ts';
import { downloadRanges } from './actions.ts';
import { RuntimeSwitch } from '../runtime/RuntimeSwitch.tsx';
import { backendName, backendText, whyText } from '../runtime/backendText.ts';
import { errorHint, errorTitle } from './errorTitles.ts';
import { NO_FIGURE_TEXT, type MethodChoice } from '../../../core/evaluate/calibrationMethodChoice.ts';
import { JUDGED_FORM_TEXT } from '../../../core/evaluate/judgedScaleForm.ts';
import { StepCard } from '../../components/StepCard.tsx';

/** Samples a second as people read them: 12, 2.5, 0.043. */
export function formatRate(perSecond: number): string {
  if (perSecond >= 10) return perSecond.toFixed(0);
  if (perSecond >= 1) return perSecond.toFixed(1);
  return perSecond > 0 ? String(Number(perSecond.toPrecision(2))) : '0';
}

/** "about 12 s left", "about 3 min left". */
export function timeLeft(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return 'estimating time left';
  if (seconds < 1) return 'almost done';
  if (seconds < 90) return `about ${Math.ceil(seconds)} s left`;
  return `about ${Math.round(seconds / 60)} min left`;
}

function Progress() {
  const progress = useStudio((s) => s.calibration.progress);
  const cancel = useStudio((s) => s.cancelCalibration);
  const done = progress?.done ?? 0;
  const total = progress?.total ?? 0;
  const percent = total > 0 ? (100 * done) / total : 0;
  return (
    <div className="progress" data-testid="calibration-progress" aria-live="polite">
      <div className="progress__head">
        <Spinner size={18} />
        <span className="progress__title">
          {progress ? (
            <>
              Calibrating: <span data-testid="progress-done">{exact(done)}</span> / {exact(total)}{' '}
              {total === 1 ? 'sample' : 'samples'}
            </>
          ) : (
            'Loading the model into onnxruntime…'
          )}
        </span>
        <button type="button" className="button button--small" onClick={cancel} data-testid="calibration-cancel">
          Cancel
        </button>
      </div>
      <ProgressTrack label="Calibration progress" now={done} max={total || 1} percent={percent} />
      <div className="progress__meta">
        {progress && progress.imagesPerSecond > 0 && (
          <span data-testid="progress-rate">{formatRate(progress.imagesPerSecond)} per second</span>
        )}
        {progress && <span>{timeLeft(progress.etaSeconds)}</span>}
        {progress && progress.passes > 1 && (
          <span>
            pass {progress.pass} of {progress.passes} (outputs split to fit memory)
          </span>
        )}
        <span data-testid="calibration-backend">{backendText(progress?.backend ?? null, progress?.workers)}</span>
        {whyText(progress?.backend ?? null) && (
          <span className="muted" data-testid="calibration-backend-why">
            ({whyText(progress?.backend ?? null)})
          </span>
        )}
        {progress && progress.skipped.length > 0 && (
          <span className="progress__skipped">{plural(progress.skipped.length, 'file')} skipped</span>
        )}
      </div>
    </div>
  );
}

/** Which calibration method the held-in choice took, and each method's figure on the judging samples, as bars. */
function MethodChoiceFigures({ choice }: { choice: MethodChoice }) {
  if (choice.noFigure)
    return (
      <div className="method-choice" data-testid="calibration-method-choice" data-chosen={choice.chosen}>
        <p className="outcome__line">
          Calibration method: <strong>{choice.chosen}</strong>, <span className="muted small">{NO_FIGURE_TEXT}</span>
        </p>
      </div>
    );
  const low = Math.min(...choice.measured.map((m) => m.cosine));
  const high = Math.max(...choice.measured.map((m) => m.cosine));
  // Bars from a little under the lowest figure, so that differences in the fourth decimal show.
  const floor = Math.max(0, low - Math.max(high - low, 1e-4));
  return (
    <div className="method-choice" data-testid="calibration-method-choice" data-chosen={choice.chosen}>
      <p className="outcome__line">
        Calibration method chosen on held-in samples: <strong>{choice.chosen}</strong>{' '}
        <span className="muted small">
          ({choice.calibrated} calibrated, {choice.judged} judged; mean output cosine at onnxruntime-web’s default
          options; the preset’s own keeps a tie{choice.judgedForm ? `; ${JUDGED_FORM_TEXT[choice.judgedForm]}` : ''})
        </span>
      </p>
      <table className="method-choice__table small">
        <tbody>
          {choice.measured.map((m) => (
            <tr key={m.method} data-testid="method-choice-row" aria-current={m.method === choice.chosen || undefined}>
              <th scope="row">{m.method}</th>
              <td className="mono">{m.cosine.toFixed(5)}</td>
              <td className="method-choice__bar-cell" aria-hidden="true">
                <span
                  className={`method-choice__bar${m.method === choice.chosen ? ' method-choice__bar--chosen' : ''}`}
                  style={{ width: `${Math.max(2, (100 * (m.cosine - floor)) / (high - floor || 1))}%` }}
                />
              </td>
              <td>{m.method === choice.chosen ? 'chosen' : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Outcome() {
  const result = useStudio((s) => s.calibration.result);
  const stale = !useStudio(rangesAreCurrent);
  if (!result) return null;
  const tensors = Object.keys(result.ranges).length;
  return (
    <div className="outcome" data-testid="calibration-result">
      <p className="outcome__line">
        <strong>Calibrated</strong> on <span data-testid="calibration-used">{exact(result.used)}</span>
        {result.samples > 0 ? ` of ${exact(result.samples)}` : ''} {result.used === 1 ? 'sample' : 'samples'} in{' '}
        {result.seconds.toFixed(1)} s{result.seconds > 0 && ` (${formatRate(result.used / result.seconds)} per second)`}
        : ranges of {plural(tensors, 'tensor')}, {result.method}, {backendText(result.backend, result.workers)}.
      </p>
      {result.methodChoice && <MethodChoiceFigures choice={result.methodChoice} />}
      {whyText(result.backend) && (
        <p className="muted small" data-testid="calibration-backend-why">
          Why {backendName(result.backend)}: {whyText(result.backend)}.
        </p>
      )}
      {result.skipped.length > 0 && (
        <Callout kind="warning" testId="calibration-skipped" title={`${plural(result.skipped.length, 'file')} skipped`}>
          <ul className="plain-list">
            {result.skipped.map((s) => (
              <li key={s.file} data-testid="skipped-file">
                <span className="file-name">{s.file}</span>: {s.reason}
              </li>
            ))}
          </ul>
        </Callout>
      )}
      {result.warnings.map((w) => (
        <Callout key={w} kind="warning" testId="calibration-warning">
          {w}
        </Callout>
      ))}
      {stale && (
        <Callout kind="warning" testId="calibration-stale" title="Settings changed since this calibration">
          The preset or the preprocessing is not what these ranges were collected with: calibrate again before
          quantizing.
        </Callout>
      )}
      <div className="step__actions">
        <button type="button" className="button button--small" onClick={downloadRanges} data-testid="download-ranges">
          Download ranges JSON
        </button>
      </div>
    </div>
  );
}

export function CalibrateCard() {
  const status = useStudio((s) => s.calibration.status);
  const error = useStudio((s) => s.calibration.error);
  const count = useStudio((s) => s.calibration.images.length + s.calibration.npy.length);
  const random = useStudio((s) => s.run.settings.useRandomData);
  const calibrate = useStudio((s) => s.calibrate);
  const dismiss = useStudio((s) => s.dismissCalibrationError);
  const hasResult = useStudio((s) => s.calibration.result !== null);
  const importStatistics = useStudio((s) => s.importStatistics);
  const statisticsInput = useRef<HTMLInputElement>(null);
  const running = status === 'running';
  const floatNeeded = useStudio(floatModelNeeded);

  return (
    <StepCard
      titleId="calibrate-title"
      step={4}
      data-testid="calibrate-card"
      data-calibration-status={status}
      title="Calibrate"
    >
      <div className="step__actions">
        <button
          type="button"
          className="button button--primary"
          onClick={() => void calibrate()}
          disabled={running || floatNeeded !== null}
          title={floatNeeded ?? undefined}
          data-testid="calibrate-button"
        >
          {status === 'done' ? 'Calibrate again' : 'Calibrate'}
        </button>
        <button
          type="button"
          className="button button--small"
          onClick={() => statisticsInput.current?.click()}
          disabled={running}
          title="Ranges from the statistics qstudio calibrate --shard … --stats and qstudio merge --stats write"
          data-testid="import-statistics-button"
        >
          Import statistics…
        </button>
        <JsonFileInput
          inputRef={statisticsInput}
          testId="import-statistics"
          onFile={(file) => {
            if (file) void importStatistics(file);
          }}
        />
        <RuntimeSwitch disabled={running} />
        <span className="muted small" data-testid={floatNeeded ? 'float-model-needed' : undefined}>
          {floatNeeded ??
            (count > 0
              ? `Runs the float model on ${plural(count, 'sample')} and records the range of every tensor.`
              : random
                ? 'No data given: random inputs will be used.'
                : 'Add calibration data first (step 1).')}
        </span>
      </div>
      {running && <Progress />}
      {status === 'cancelled' && (
        <Callout kind="info" testId="calibration-cancelled" title="Calibration cancelled">
          Nothing was kept from the cancelled run{hasResult ? '; the previous ranges are still below' : ''}. Start again
          when ready.
        </Callout>
      )}
      {error && (
        <ErrorCallout
          error={error}
          testId="calibration-error"
          title={errorTitle(error.name, 'Calibration failed')}
          hint={errorHint(error.name)}
          onDismiss={dismiss}
        />
      )}
      {!running && <Outcome />}
    </StepCard>
  );
}
