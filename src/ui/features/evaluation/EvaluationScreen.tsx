/**
 * Evaluation and report: once the model is quantized, run both models on the calibration images or
 * an evaluation set, see how close the outputs stay and where inside the graph the error arises,
 * download the report, and let the studio search for exclusions that reach a target cosine.
 * Loaded on first use (App lazy-loads it), like the calibration screen.
 */
import { ErrorCallout } from '../../components/ErrorCallout.tsx';
import { useStudio } from '../../store/index.ts';
import { EvaluationDataChoice } from './EvaluationDataChoice.tsx';
import { EvaluationProgressBar } from './EvaluationProgressBar.tsx';
import { EvaluationResults } from './EvaluationResults.tsx';
import { SuggestCard } from './SuggestCard.tsx';
import { TaskHeadChoice } from './TaskHeadChoice.tsx';
import { ParityCard } from './ParityCard.tsx';
import { evaluationErrorHint, evaluationErrorTitle } from './errorTitles.ts';
import './evaluation.css';
import { StepCard } from '../../components/StepCard.tsx';
import { Checkbox } from '../../components/Checkbox.tsx';
import { FlowSection } from '../../components/FlowSection.tsx';

function EvaluateCard() {
  const status = useStudio((s) => s.evaluation.status);
  const progress = useStudio((s) => s.evaluation.progress);
  const result = useStudio((s) => s.evaluation.result);
  const error = useStudio((s) => s.evaluation.error);
  const quantized = useStudio((s) => s.run.result?.blob ?? null);
  const search = useStudio((s) => s.evaluation.suggest.outcome);
  const searching = useStudio((s) => s.evaluation.suggest.status === 'running');
  const evaluate = useStudio((s) => s.evaluate);
  const cancel = useStudio((s) => s.cancelEvaluation);
  const dismiss = useStudio((s) => s.dismissEvaluationError);
  const layers = useStudio((s) => s.evaluation.layers);
  const setLayers = useStudio((s) => s.setEvaluationLayers);
  const npuBf16 = useStudio((s) => s.evaluation.npuBf16);
  const setNpuBf16 = useStudio((s) => s.setEvaluationNpuBf16);
  const running = status === 'running';
  const stale = result !== null && result.quantized !== quantized;

  return (
    <StepCard titleId="evaluate-title" step={6} data-testid="evaluate-card" data-eval-status={status} title="Evaluate">
      <EvaluationDataChoice disabled={running} />
      <Checkbox
        className="eval-source__option"
        checked={layers}
        onChange={setLayers}
        testId="eval-layers-toggle"
        disabled={running}
      >
        compare every layer too{' '}
        <span className="muted small">(per-layer SQNR, error jumps, the graph's heat map; slower)</span>
      </Checkbox>
      <Checkbox
        className="eval-source__option"
        checked={npuBf16}
        onChange={setNpuBf16}
        testId="eval-npu-toggle"
        disabled={running}
      >
        also judge it as the NPU runs it{' '}
        <span className="muted small">
          (the parts left float — exclusions, ops without a rule — run in BF16, as the Ryzen AI compiler runs them; a
          second figure beside the one as written)
        </span>
      </Checkbox>
      <TaskHeadChoice disabled={running} />
      <div className="step__actions">
        <button
          type="button"
          className={result ? 'button' : 'button button--primary'}
          disabled={!quantized || running || searching}
          onClick={() => void evaluate()}
          data-testid="evaluate-button"
        >
          {result ? 'Evaluate again' : 'Evaluate'}
        </button>
        {!quantized && !running && (
          <span className="muted small">
            Quantize first (step 5): the evaluation compares the quantized model with the float one, layer by layer.
          </span>
        )}
      </div>
      {running && (
        <EvaluationProgressBar progress={progress} onCancel={cancel} testId="eval-progress" label="Evaluating" />
      )}
      {status === 'cancelled' && (
        <p className="muted small" data-testid="eval-cancelled">
          The evaluation was cancelled.
        </p>
      )}
      {error && (
        <ErrorCallout
          error={error}
          testId="eval-error"
          title={evaluationErrorTitle(error.name, 'The evaluation failed')}
          hint={evaluationErrorHint(error.name)}
          onDismiss={dismiss}
        />
      )}
      {result && <EvaluationResults result={result} stale={stale} search={search} />}
    </StepCard>
  );
}

export default function EvaluationScreen() {
  return (
    <FlowSection
      titleId="eval-flow-title"
      title="Evaluate and report"
      lead="Both models run here, on the same images; the report downloads as one file that opens offline."
      testId="evaluation-screen"
    >
      <EvaluateCard />
      <ParityCard />
      <SuggestCard />
    </FlowSection>
  );
}
