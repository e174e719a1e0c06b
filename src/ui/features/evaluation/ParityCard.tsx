/**
 * Parity across runtimes (issue 34): one click runs the float and the quantized model on every runtime this
 * browser has (WASM, WebGPU, WebGPU as onnxruntime-web's default JSEP build runs it, WebNN where exposed) on the
 * first evaluation images. A table of output cosine against the WASM float reference per runtime and model, a
 * flag where a runtime parts from WASM on the same model beyond float rounding, and the first node where it parts,
 * with a button that shows it on the graph. Runtimes the browser lacks are listed with why.
 */
import { Callout } from '../../components/Callout.tsx';
import { StepCard } from '../../components/StepCard.tsx';
import { useStudio } from '../../store/index.ts';
import type { ParityRow } from '../../remote/workerTypes.ts';
import { EvaluationProgressBar } from './EvaluationProgressBar.tsx';

const cos = (v: number | null) => (v === null ? '—' : v >= 0.99995 && v < 1 ? v.toFixed(6) : v.toFixed(4));

function Parting({ row }: { row: ParityRow }) {
  const select = useStudio((s) => s.selectGraphNode);
  const p = row.parting;
  if (!row.flagged) return <span className="muted">agrees</span>;
  if (!p) return <span>parts only at the outputs</span>;
  return (
    <span data-testid="parity-parting">
      first parts at <code>{p.node}</code> ({p.opType}, tensor <code>{p.tensor}</code>, relative error{' '}
      {p.relativeError.toExponential(1)})
      {p.floatNodeId && (
        <button
          type="button"
          className="button button--small"
          onClick={() => select(p.floatNodeId, { centre: true })}
          data-testid="parity-show-node"
          title={
            p.floatNodeName === p.node
              ? 'Select this node in the graph view'
              : `Select ${p.floatNodeName}, the float graph's node it feeds`
          }
        >
          Show in graph
        </button>
      )}
    </span>
  );
}

export function ParityCard() {
  const parity = useStudio((s) => s.parity);
  const quantized = useStudio((s) => s.run.result?.blob ?? null);
  const check = useStudio((s) => s.checkParity);
  const cancel = useStudio((s) => s.cancelParity);
  const running = parity.status === 'running';
  const result = parity.result;
  const stale = result !== null && result.quantized !== quantized;
  const flagged = result?.rows.filter((r) => r.flagged) ?? [];

  return (
    <StepCard
      titleId="parity-title"
      title="Parity across runtimes"
      data-testid="parity-card"
      data-parity-status={parity.status}
    >
      <p className="muted small">
        The float and the quantized model on every runtime this browser has, on the first evaluation images, against the
        WASM float reference: a model right on WASM can be wrong on WebGPU (onnxruntime-web&apos;s JSEP build computes
        int8 DequantizeLinear wrongly, onnxruntime #32578).
      </p>
      <div className="step__actions">
        <button
          type="button"
          className="button"
          disabled={!quantized || running}
          onClick={() => void check()}
          data-testid="parity-button"
        >
          {result ? 'Check parity again' : 'Check parity across runtimes'}
        </button>
        {!quantized && <span className="muted small">Quantize first (step 5).</span>}
      </div>
      {running && (
        <EvaluationProgressBar
          progress={parity.progress}
          onCancel={cancel}
          testId="parity-progress"
          label="Checking parity"
        />
      )}
      {parity.status === 'cancelled' && <p className="muted small">The parity check was cancelled.</p>}
      {parity.error && (
        <Callout kind="error" testId="parity-error" title="The parity check failed">
          <p>{parity.error.message}</p>
        </Callout>
      )}
      {result && (
        <div data-testid="parity-result">
          {stale && (
            <Callout kind="warning" title="Quantized again since">
              This table is of the previous quantized model: check again.
            </Callout>
          )}
          {flagged.length > 0 ? (
            <Callout
              kind="warning"
              testId="parity-flag"
              title={`${flagged.length} runtime${flagged.length === 1 ? '' : 's'} part${flagged.length === 1 ? 's' : ''} from WASM beyond float rounding`}
            >
              {flagged.map((r) => `${r.label}, ${r.model} model`).join('; ')}.
            </Callout>
          ) : (
            <p className="small" data-testid="parity-agree">
              Every runtime agrees with WASM to float rounding on both models.
            </p>
          )}
          <table className="table" data-testid="parity-table">
            <thead>
              <tr>
                <th>Runtime</th>
                <th>Model</th>
                <th>Output cosine to WASM float</th>
                <th>Agreement with WASM, same model</th>
                <th>Where it parts</th>
                <th>Time</th>
              </tr>
            </thead>
            <tbody>
              {result.rows.map((r) => (
                <tr
                  key={`${r.runtime}-${r.model}`}
                  data-testid={`parity-row-${r.runtime}-${r.model}`}
                  data-flagged={r.flagged ? 'true' : 'false'}
                  className={r.flagged ? 'row--flagged' : undefined}
                >
                  <td>{r.label}</td>
                  <td>{r.model}</td>
                  <td className="num">{r.error ? '—' : cos(r.cosine)}</td>
                  <td className="num">{r.error ? '—' : cos(r.agreement)}</td>
                  <td>
                    {r.error ? (
                      <span className="muted" title={r.error}>
                        did not run: {r.error.slice(0, 120)}
                      </span>
                    ) : (
                      <Parting row={r} />
                    )}
                  </td>
                  <td className="num">{r.seconds.toFixed(1)} s</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted small">
            {result.samples} image{result.samples === 1 ? '' : 's'}; graph optimization &apos;basic&apos; everywhere.
            {result.unavailable.map((u) => ` ${u.label}: ${u.reason}.`).join('')}
          </p>
        </div>
      )}
    </StepCard>
  );
}
