/**
 * The measured configurations side by side: label, why a ladder rung came when it did, the reference's step, the
 * target metric with cosine and PSNR (and the decisions of an output of one number a sample), time (with the estimate the budget planned with), status, which is chosen, and
 * what a mixed-precision search chose; "Use this model", under the status (no column of its own, so that the table fits
 * a 900 px page without scrolling sideways), makes one the run's result.
 */
import { METRIC_LABEL } from '../../components/TargetField.tsx';
import type { LadderMetric } from '../../../core/recovery/ladder.ts';
import { ladderValueText } from '../../../core/report/htmlText.ts';
import { isLostRung, useStudio } from '../../store/index.ts';
import type { RungSummary } from '../../store/recoverySlice.ts';
import type { SensitiveSummary } from '../../remote/workerTypes.ts';
import { DataTable, NumberHead } from '../../components/DataTable.tsx';
import { plural } from '../../components/format.ts';
import { formatDuration } from '../../../core/recovery/ladderBudget.ts';

const STEP: Record<string, string> = {
  '1': '1: XINT8',
  '2': '2: algorithms',
  '3': '3: precision',
  '4': '4: exclusions',
  ours: 'ours',
};

/** A rung the user's Cancel or the time budget stopped: said as such, not as a failure. */
const STOPPED_TEXT: Record<NonNullable<RungSummary['stoppedBy']>, string> = {
  cancel: 'cancelled while it was measured (no model)',
  budget: 'stopped by the time budget while it was measured (no model)',
};

function metric(name: string, v: number | undefined): string {
  return v === undefined ? '—' : ladderValueText(name, v);
}

export function RungTable({
  rungs,
  chosen,
  targetMetric,
}: {
  rungs: readonly RungSummary[];
  chosen: number | null;
  targetMetric: string;
}) {
  const adopted = useStudio((s) => s.recovery.adopted);
  const picking = useStudio((s) => s.recovery.picking);
  const use = useStudio((s) => s.useRung);
  // A model with an output of one number a sample: its decisions beside each rung, as the CLI's rung lines show them.
  const decisions = rungs.some((r) => Number.isFinite(r.metrics.decision));
  const others = [
    'cosine',
    'psnr',
    ...(targetMetric === 'sequence' ? ['cer'] : []),
    ...(decisions ? ['decision'] : []),
  ].filter((m) => m !== targetMetric);
  return (
    <DataTable
      className="eval-table recover-table"
      testId="rung-table"
      head={
        <>
          <NumberHead>#</NumberHead>
          <th scope="col">Configuration</th>
          <th scope="col">Reference step</th>
          <NumberHead>{targetMetric}</NumberHead>
          {others.map((m) => (
            <NumberHead key={m}>{m}</NumberHead>
          ))}
          <NumberHead>Time</NumberHead>
          <th scope="col">Status</th>
        </>
      }
    >
      {rungs.map((r, i) => (
        <tr
          key={r.index}
          data-testid="rung-row"
          data-rung-label={r.label}
          data-chosen={i === chosen ? 'true' : undefined}
          data-timing={r.timing ? JSON.stringify(r.timing) : undefined}
        >
          <td className="eval-num">{r.index}</td>
          <td className="tensor-table__name">
            {r.label}
            {i === chosen && (
              <span className="recover-badge recover-badge--chosen" data-testid="rung-chosen">
                {' '}
                chosen
              </span>
            )}
            {r.handle !== null && r.handle === adopted && (
              <span className="recover-badge" data-testid="rung-adopted">
                {' '}
                in use
              </span>
            )}
            {r.why && (
              <details className="muted small recover-why" data-testid="rung-why">
                <summary>Why at this point</summary>
                {r.why}
              </details>
            )}
            {r.mixedPrecision && <MixedLine m={r.mixedPrecision} />}
            {r.bodyWarning && (
              <div className="muted small" data-testid="rung-body-warning">
                warning: {r.bodyWarning}
              </div>
            )}
            {r.finetune && (
              <div className="muted small">
                {r.finetune.algorithm}: loss {r.finetune.lossBefore.toPrecision(3)} →{' '}
                {r.finetune.lossAfter.toPrecision(3)} over {plural(r.finetune.layers.length, 'layer')}
                {r.finetune.sensitive && <SensitiveLine s={r.finetune.sensitive} />}
              </div>
            )}
          </td>
          <td className="recover-table__step">{r.step === null ? 'your settings' : STEP[String(r.step)]}</td>
          <td className="eval-num" data-testid="rung-score">
            {metric(targetMetric, r.score)}
          </td>
          {others.map((m) => (
            <td key={m} className="eval-num">
              {metric(m, r.metrics[m])}
            </td>
          ))}
          <td
            className="eval-num recover-table__time"
            title={
              r.timing
                ? `CLE ${r.timing.cle.toFixed(2)} s, calibration ${r.timing.calibrate.toFixed(2)} s, layer data ${r.timing.gather.toFixed(2)} s, fine-tuning ${r.timing.finetune.toFixed(2)} s, bias correction ${r.timing.biasCorrection.toFixed(2)} s`
                : undefined
            }
          >
            {r.seconds.toFixed(1)} s
            {r.estimate && (
              <div className="muted small" data-testid="rung-estimate" title={r.estimate.basis}>
                estimated <span className="recover-table__duration">{formatDuration(r.estimate.seconds)}</span>
              </div>
            )}
          </td>
          <td className="recover-table__status">
            {r.error ? (
              <span className="muted small" data-testid="rung-error" title={r.error}>
                {r.stoppedBy ? STOPPED_TEXT[r.stoppedBy] : `failed: ${r.error}`}
              </span>
            ) : r.met ? (
              'meets the target'
            ) : r.step === null ? (
              'measured'
            ) : (
              'below the target'
            )}
            {r.stoppedEarly && (
              <div className="muted small" data-testid="rung-stopped-early" title={r.stoppedEarly}>
                stopped early: {r.stoppedEarly}
              </div>
            )}
            {r.handle && (
              <button
                type="button"
                className="button button--small"
                disabled={picking !== null || r.handle === adopted}
                onClick={() => void use(r.handle!)}
                data-testid="rung-use"
              >
                {r.handle === adopted
                  ? 'In use'
                  : picking === r.handle
                    ? isLostRung(r.handle)
                      ? 'Rebuilding…'
                      : 'Loading…'
                    : 'Use this model'}
              </button>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

/**
 * What the mixed-precision search did: the figure it aimed at (the cosine, or a task figure) on the calibration
 * images, and how much of each budget it used.
 */
function MixedLine({ m }: { m: NonNullable<RungSummary['mixedPrecision']> }) {
  const b = m.budget;
  return (
    <div className="muted small" data-testid="rung-mixed" data-metric={m.metric}>
      mixed precision: {METRIC_LABEL[m.metric as LadderMetric] ?? m.metric} {m.startCosine.toFixed(4)} →{' '}
      {m.cosine.toFixed(4)} on {m.samples ? plural(m.samples, 'calibration sample') : 'the calibration images'} (
      {m.reached ? 'aim reached' : 'aim not reached within the budget'}, {m.measurements} measurements); 16-bit
      activations {b.act16.used} of {b.act16.limit} allowed ({b.act16.of} in all), 16-bit weights {b.w16.used} of{' '}
      {b.w16.limit}, float nodes {b.float.used} of {b.float.limit}
      {m.fewSamples && (
        <span data-testid="rung-mixed-few-samples">. Note: {m.fewSamples} (more calibration samples)</span>
      )}
    </div>
  );
}

const SENSITIVE_WHY: Record<SensitiveSummary['why'], string> = {
  given: 'as set',
  default: 'the default',
};

/** Which layers a fine-tuning run tuned, and why: every layer, or the sensitive ones to a share of the added noise. */
function SensitiveLine({ s }: { s: SensitiveSummary }) {
  const which =
    s.share >= 1
      ? 'every layer'
      : `${s.tuned} of ${plural(s.of, 'layer')}, those adding ${Math.round(s.share * 100)} % of the measured noise`;
  const spread =
    s.concentration === null ? '' : `; the top tenth of layers add ${Math.round(s.concentration * 100)} % of it`;
  return (
    <div data-testid="rung-sensitive" data-share={s.share} data-why={s.why}>
      tuned {which} ({SENSITIVE_WHY[s.why]}
      {spread})
    </div>
  );
}
