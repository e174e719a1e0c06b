/**
 * "Suggest exclusions": a target (an output cosine, or a task figure through the chosen head), then the core's greedy search run in the evaluation
 * worker: each step keeps one more node (or an output tail) float, re-quantizes and measures; the
 * table fills in as steps are measured. "Accept" turns what the search kept into exclusion entries,
 * which the user can still remove from the exclusion list.
 */
import { formatCosine, formatDb } from '../../../core/report/htmlText.ts';
import { ErrorCallout } from '../../components/ErrorCallout.tsx';
import { plural } from '../../components/format.ts';
import { useStudio } from '../../store/index.ts';
import type { SuggestState } from '../../store/evaluationSlice.ts';
import { EvaluationProgressBar } from './EvaluationProgressBar.tsx';
import { AIM_TEXT, AimSelect } from '../../components/AimSelect.tsx';
import { evaluationErrorHint, evaluationErrorTitle } from './errorTitles.ts';
import { DECISION_TARGET, METRIC_LABEL, TargetField } from '../../components/TargetField.tsx';
import { currentTaskHead } from '../../store/selectors.ts';
import { StepCard } from '../../components/StepCard.tsx';
import { Checkbox } from '../../components/Checkbox.tsx';
import { NumberField } from '../../components/NumberField.tsx';
import { DataTable, NumberHead } from '../../components/DataTable.tsx';
import { suggestUnjudgedNote } from '../../store/unjudgedNotes.ts';

/** A target's figure (mAP, mIoU, top-1…) to five places; a dash when not measured. */
const formatFigure = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '—' : v.toFixed(5));

function what(step: SuggestState['steps'][number]): string {
  const c = step.candidate;
  if (!c) return 'starting configuration';
  return c.kind === 'node'
    ? `keep ${c.node} float`
    : `keep the tail ${c.subgraph.starts.join(', ')} → ${c.subgraph.ends.join(', ')} float (${c.nodes} nodes)`;
}

export function SuggestCard() {
  const s = useStudio((st) => st.evaluation.suggest);
  const canRun = useStudio(
    (st) => st.model.handle !== null && st.calibration.result !== null && st.evaluation.status !== 'running',
  );
  const setTarget = useStudio((st) => st.setSuggestTarget);
  const setMetric = useStudio((st) => st.setSuggestMetric);
  const head = useStudio(currentTaskHead);
  const setSteps = useStudio((st) => st.setSuggestMaxSteps);
  const setNpuBf16 = useStudio((st) => st.setSuggestNpuBf16);
  const setAim = useStudio((st) => st.setSuggestAim);
  const run = useStudio((st) => st.suggestExclusions);
  const cancel = useStudio((st) => st.cancelSuggestion);
  const dismiss = useStudio((st) => st.dismissSuggestionError);
  const accept = useStudio((st) => st.acceptSuggestion);
  const running = s.status === 'running';
  // The metric the measured steps carry a figure of (the outcome's, else the one chosen while they come in).
  const shownMetric = s.outcome?.metric ?? s.metric;
  const figureMetric = shownMetric !== 'cosine' && s.steps.some((st) => st.figure !== undefined) ? shownMetric : null;
  const added = s.outcome ? s.outcome.added.nodes.length + s.outcome.added.subgraphs.length : 0;
  const unjudged = suggestUnjudgedNote(s, DECISION_TARGET);
  // The decisions of an output of one number a sample beside each step, as qstudio suggest's step lines show them.
  const decisions = shownMetric !== 'decision' && s.steps.some((st) => st.decision !== undefined);

  return (
    <StepCard
      titleId="suggest-title"
      step={7}
      data-testid="suggest-card"
      data-suggest-status={s.status}
      title="Suggest exclusions"
    >
      <p className="muted small">
        Keeps in float, one at a time, the quantized node whose error grows most (or the tail from it to the outputs),
        re-quantizes and measures the target (the output cosine, or a task figure such as mAP@0.5 of the boxes) on the
        evaluation data; a change is kept only when the measured figure improves. Every step is measured, never
        estimated.
      </p>
      <div className="step__actions step__actions--fields">
        <TargetField
          metric={s.metric}
          value={s.target}
          onChange={({ metric, value }) => (metric === s.metric ? setTarget(value) : setMetric(metric, value))}
          head={head}
          where="the evaluation images"
          disabled={running}
          testIds={{ metric: 'suggest-metric', value: 'suggest-target', head: 'suggest-task-head' }}
        />
        <NumberField
          label="At most"
          min={1}
          max={50}
          integer
          value={s.maxSteps}
          disabled={running}
          onChange={(v) => setSteps(v!)}
          testId="suggest-steps"
        >
          <span className="muted small">steps</span>
        </NumberField>
        <AimSelect value={s.aim} onChange={setAim} disabled={running} testId="suggest-aim" />
        <Checkbox
          className="eval-source__option"
          checked={s.npuBf16}
          onChange={setNpuBf16}
          testId="suggest-npu-toggle"
          disabled={running}
        >
          as the NPU runs it <span className="muted small">(measure with the float parts in BF16)</span>
        </Checkbox>
        <button
          type="button"
          className="button button--primary"
          disabled={!canRun || running}
          onClick={() => void run()}
          data-testid="suggest-button"
        >
          Suggest exclusions
        </button>
      </div>
      {running && (
        <EvaluationProgressBar progress={s.progress} onCancel={cancel} testId="suggest-progress" label="Searching" />
      )}
      {s.status === 'cancelled' && (
        <p className="muted small" data-testid="suggest-cancelled">
          The search was cancelled; the steps measured before are kept below.
        </p>
      )}
      {s.error && (
        <ErrorCallout
          error={s.error}
          testId="suggest-error"
          title={evaluationErrorTitle(s.error.name, 'The search failed')}
          hint={evaluationErrorHint(s.error.name)}
          onDismiss={dismiss}
        />
      )}
      {s.steps.length > 0 && (
        <p className="muted small" data-testid="suggest-aimed" data-aim={s.outcome?.aim ?? s.aim}>
          Cosines measured at {AIM_TEXT[s.outcome?.aim ?? s.aim]}.
        </p>
      )}
      {s.steps.length > 0 && (
        <DataTable
          className="eval-table"
          testId="suggest-steps-table"
          head={
            <>
              <NumberHead>Step</NumberHead>
              <th scope="col">Change</th>
              <NumberHead>Layer SQNR / drop</NumberHead>
              {figureMetric && <NumberHead>Measured {METRIC_LABEL[figureMetric]}</NumberHead>}
              <NumberHead>Measured cosine</NumberHead>
              {decisions && <NumberHead>Measured decision</NumberHead>}
              <th scope="col">Kept</th>
              <NumberHead>Time</NumberHead>
            </>
          }
        >
          {s.steps.map((st) => (
            <tr key={st.step} data-testid="suggest-step">
              <td className="eval-num">{st.step}</td>
              <td className="tensor-table__name">
                {what(st)}
                {st.error && <div className="muted small">{st.error}</div>}
              </td>
              <td className="eval-num">
                {st.candidate ? `${formatDb(st.candidate.layer.sqnr)} / ${formatDb(st.candidate.layer.drop)} dB` : ''}
              </td>
              {figureMetric && (
                <td className="eval-num" data-testid="suggest-step-figure">
                  {formatFigure(st.figure)}
                </td>
              )}
              <td className="eval-num" data-testid="suggest-step-cosine">
                {formatCosine(st.cosine)}
              </td>
              {decisions && (
                <td className="eval-num" data-testid="suggest-step-decision">
                  {formatFigure(st.decision)}
                </td>
              )}
              <td>{st.step === 0 ? '' : st.kept ? 'kept' : st.error ? 'failed' : 'not kept'}</td>
              <td className="eval-num">{st.seconds.toFixed(1)} s</td>
            </tr>
          ))}
        </DataTable>
      )}
      {unjudged && (
        <p className="muted small" data-testid="suggest-unjudged">
          {unjudged}
        </p>
      )}
      {s.outcome && (
        <div className="eval-suggestion" data-testid="suggest-outcome">
          <p>
            {s.outcome.reached ? 'Reached' : 'Did not reach'} the target{' '}
            {s.outcome.metric === 'cosine' ? '' : `${METRIC_LABEL[s.outcome.metric]} `}
            {s.outcome.target}
            {s.outcome.npuBf16 ? ' as the NPU runs it (float parts in BF16)' : ''}:{' '}
            {s.outcome.metric !== 'cosine' && (
              <>
                best {METRIC_LABEL[s.outcome.metric]}{' '}
                <strong data-testid="suggest-best-figure">{formatFigure(s.outcome.figure)}</strong> (from{' '}
                {formatFigure(s.outcome.startFigure)}),{' '}
              </>
            )}
            best cosine <strong data-testid="suggest-best">{formatCosine(s.outcome.cosine)}</strong> (from{' '}
            {formatCosine(s.outcome.startCosine)}),{' '}
            {added === 0 ? 'with nothing more kept float' : `keeping ${plural(added, 'more pick')} float`}.
            {s.outcome.stopped === 'max-steps' &&
              !s.outcome.reached &&
              ' The step limit was hit: allow more steps to keep searching.'}
          </p>
          {added > 0 && (
            <div className="step__actions">
              <button
                type="button"
                className="button button--primary"
                disabled={s.accepted !== null}
                onClick={accept}
                data-testid="suggest-accept"
              >
                {s.accepted ? 'Accepted: added to the exclusions' : 'Accept: add to the exclusions'}
              </button>
              {s.accepted && <span className="muted small">Quantize again (step 5) to apply them.</span>}
            </div>
          )}
        </div>
      )}
    </StepCard>
  );
}
