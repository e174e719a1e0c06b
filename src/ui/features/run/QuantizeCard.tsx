/**
 * Quantize: the button (enabled once there are ranges that match the settings), then the result:
 * the report's counts, warnings and the float nodes with their reasons, and the downloads (the
 * quantized model and the report JSON). Nothing is uploaded: the model is a Blob on this page.
 */
import { ErrorCallout } from '../../components/ErrorCallout.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { downloadText, useObjectUrl } from '../../components/useObjectUrl.ts';
import { useStudio } from '../../store/index.ts';
import { floatModelNeeded, rangesAreCurrent } from '../../store/selectors.ts';
import { errorHint, errorTitle } from '../calibration/errorTitles.ts';
import { ReportView } from './ReportView.tsx';
import { shownPreset } from '../../store/quantSettings.ts';
import { StepCard } from '../../components/StepCard.tsx';
import { DownloadLink } from '../../components/DownloadLink.tsx';
import { reportFileName } from '../evaluation/reportFiles.ts';

export function QuantizeCard() {
  const status = useStudio((s) => s.run.status);
  const result = useStudio((s) => s.run.result);
  const error = useStudio((s) => s.run.error);
  const quantize = useStudio((s) => s.quantize);
  const dismiss = useStudio((s) => s.dismissRunError);
  const bf16 = useStudio((s) => s.run.settings.bf16 === true);
  // BF16 with-cast needs no ranges: it is ready as soon as a model is open.
  const ready = useStudio(
    (s) =>
      s.calibration.status !== 'running' &&
      (s.run.settings.bf16 === true ? s.model.handle !== null : rangesAreCurrent(s)),
  );
  const preset = useStudio((s) => shownPreset(s.run.settings));
  const url = useObjectUrl(result?.blob);
  const dataUrl = useObjectUrl(result?.data?.blob);
  const running = status === 'running';
  const floatNeeded = useStudio(floatModelNeeded);

  return (
    <StepCard titleId="quantize-title" step={5} data-testid="quantize-card" data-run-status={status} title="Quantize">
      <div className="step__actions">
        <button
          type="button"
          className={result ? 'button' : 'button button--primary'}
          disabled={!ready || running || floatNeeded !== null}
          title={floatNeeded ?? undefined}
          onClick={() => void quantize()}
          data-testid="quantize-button"
        >
          {result ? 'Quantize again' : 'Quantize'} with {preset}
        </button>
        {running && (
          <span className="inline-status">
            <Spinner size={16} /> Quantizing…
          </span>
        )}
        {floatNeeded && <span className="muted small">Needs the float model: see step 4.</span>}
        {!ready && !running && !floatNeeded && (
          <span className="muted small">Calibrate with the current settings first (step 4).</span>
        )}
        {bf16 && !running && (
          <span className="muted small" data-testid="bf16-ready">
            BF16 needs no calibration.
          </span>
        )}
      </div>
      {error && (
        <ErrorCallout
          error={error}
          testId="quantize-error"
          title={errorTitle(error.name, 'Quantization failed')}
          hint={errorHint(error.name)}
          onDismiss={dismiss}
        />
      )}
      {result && (
        <div className="quant-result" data-testid="quantize-result">
          <ReportView result={result} />
          <div className="step__actions">
            {url && <DownloadLink href={url} fileName={result.fileName} testId="download-model" />}
            {dataUrl && result.data && (
              <DownloadLink
                href={dataUrl}
                fileName={result.data.fileName}
                testId="download-model-data"
                title="The weights, which the .onnx file refers to: keep both files in the same folder"
              />
            )}
            <button
              type="button"
              className="button"
              data-testid="download-report"
              onClick={() =>
                downloadText(`${JSON.stringify(result.report, null, 2)}\n`, reportFileName(result.fileName, 'json'))
              }
            >
              Download report JSON
            </button>
          </div>
        </div>
      )}
    </StepCard>
  );
}
