/**
 * "Recover accuracy": after quantizing, the user either switches on the reference's algorithms (CLE, bias
 * correction, AdaRound or AdaQuant) and quantizes with them, or gives a target and lets the studio climb
 * the best-practice ladder (by default every 8-bit route first: XINT8 → CLE → A8W8 → AdaRound → AdaQuant →
 * mixed precision; then A16W8; then exclusions; or the fastest order) until a rung meets it. Live progress with the loss curves, cancel, every measured configuration side by side, "Use
 * this model" (download and evaluation then work on it), and the ladder's report. Loaded on first use.
 */
import { AimSelect } from '../../components/AimSelect.tsx';
import { ProgressTrack } from '../../components/ProgressTrack.tsx';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { formatDuration, ladderPrior } from '../../../core/recovery/ladderBudget.ts';
import { evaluationSamples, samplesOf } from '../../store/samples.ts';
import { renderHtml, shortfallSections } from '../../../core/report/index.ts';
import { type LadderMetric, type LadderOrder } from '../../../core/recovery/ladder.ts';
import { DECISION_TARGET, METRIC_LABEL, TargetField } from '../../components/TargetField.tsx';
import { FUNCTION_RULES_ROUTE } from '../../../core/quantize/attentionBlocks.ts';
import { Callout } from '../../components/Callout.tsx';
import { ErrorCallout } from '../../components/ErrorCallout.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { downloadText, useObjectUrl } from '../../components/useObjectUrl.ts';
import { isLostRung, useStudio } from '../../store/index.ts';
import { skippedText } from './skippedText.ts';
import type { RecoveryWorkerProgress } from '../../store/recoverySlice.ts';
import { currentTaskHead, floatModelNeeded } from '../../store/selectors.ts';
import { CurveChart, LayerLosses } from './LossCurves.tsx';
import { RungTable } from './RungTable.tsx';
import { ladderUnjudgedNote } from '../../store/unjudgedNotes.ts';
import { RanOn } from '../runtime/RanOn.tsx';
import { StepCard } from '../../components/StepCard.tsx';
import { Checkbox, type CheckboxProps } from '../../components/Checkbox.tsx';
import { DownloadLink } from '../../components/DownloadLink.tsx';
import { NumberField } from '../../components/NumberField.tsx';
import './recovery.css';
import { modelStem } from '../../../core/onnx/fileName.ts';

const PHASE: Record<RecoveryWorkerProgress['phase'], string> = {
  decoding: 'Decoding images',
  prepare: 'Starting the rung',
  cle: 'Cross-layer equalization',
  smoothquant: 'SmoothQuant: measuring activation channels',
  calibrate: 'Calibrating',
  quantize: 'Quantizing',
  gather: 'Running the models for layer data',
  layer: 'Tuning layers',
  evaluate: 'Measuring on the evaluation data',
  'rung-done': 'Measured',
  mixed: 'Mixed precision: measuring what hurts most',
};

/** Re-renders every second while mounted (elapsed times and estimates move on their own). */
function useSecondTick(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(id);
  }, []);
  return now;
}

/**
 * The share of the current rung done: by its phase's own count where it has one (layers tuned, samples decoded, stages
 * gathered, mixed-precision measurements), else by the time spent against the rung's estimate (never past 95 %), so the
 * bar moves in every phase.
 */
function rungShare(progress: RecoveryWorkerProgress | null, rungSeconds: number): number {
  const l = progress?.layer;
  const done = l ? l.done : (progress?.done ?? 0);
  const total = l ? l.total : (progress?.total ?? 0);
  if (total > 0) return Math.min(1, done / total);
  const estimate = progress?.rung?.estimate?.seconds;
  if (estimate && estimate > 0) return Math.min(0.95, rungSeconds / estimate);
  return 0;
}

/** A progress bar with its caption beside it ("This rung 40 %"); the caption's test id is the bar's with "-caption". */
function CaptionedTrack({
  label,
  share,
  thin,
  testId,
}: {
  label: string;
  share: number;
  thin?: boolean;
  testId: string;
}) {
  const percent = Math.round(share * 100);
  return (
    <div className="progress__row">
      <span className="progress__caption muted small" data-testid={`${testId}-caption`}>
        {label} {percent} %
      </span>
      <ProgressTrack label={label} now={percent} max={100} percent={percent} thin={thin} testId={testId} />
    </div>
  );
}

function ProgressLine({
  progress,
  onCancel,
  startedAt,
  rungStartedAt,
  cancelling,
  budgetMinutes,
}: {
  progress: RecoveryWorkerProgress | null;
  onCancel: () => void;
  startedAt: number | null;
  rungStartedAt: number | null;
  cancelling: boolean;
  budgetMinutes: number | null;
}) {
  const now = useSecondTick();
  const ref = useRef<HTMLDivElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  // Brought into view when the run starts: the choices above are long, the progress would sit below the fold. The run
  // button pressed is disabled now and the focus fell to the page's top: a keyboard user lands on Cancel instead.
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'center', behavior: 'smooth' });
    const active = document.activeElement;
    if (active === null || active === document.body || (active as HTMLButtonElement).disabled)
      cancelButton.current?.focus({ preventScroll: true });
  }, []);
  const l = progress?.layer;
  const done = l ? l.done : (progress?.done ?? 0);
  const total = l ? l.total : (progress?.total ?? 0);
  const rung = progress?.rung ?? null;
  const elapsed = startedAt === null ? 0 : (now - startedAt) / 1000;
  const inRung = rungStartedAt === null ? 0 : (now - rungStartedAt) / 1000;
  const share = rungShare(progress, inRung);
  // The climb's bar: rungs finished plus the share of the one in flight, of the most there may be.
  const climbShare = rung?.of
    ? Math.min(1, (rung.index - 1 + (progress?.phase === 'rung-done' ? 1 : share)) / rung.of)
    : null;
  const estimate = rung?.estimate;
  const rungLeft = estimate ? Math.max(0, estimate.seconds - inRung) : null;
  const budgetLeft = budgetMinutes === null ? null : Math.max(0, budgetMinutes * 60 - elapsed);
  return (
    <div className="progress" data-testid="recover-progress" aria-live="polite" ref={ref}>
      <div className="progress__head">
        <Spinner size={16} />
        <span className="progress__title" data-testid="recover-progress-text">
          {cancelling && 'Cancelling: the current step ends first, the rungs measured are kept. '}
          {rung && (
            <span data-testid="recover-progress-rung">{`Rung ${rung.index}${rung.of ? ` of at most ${rung.of}` : ''} (${rung.label}): `}</span>
          )}
          {progress ? PHASE[progress.phase] : 'Starting…'}
          {l
            ? ` — layer ${l.done} of ${l.total}`
            : progress?.phase === 'mixed'
              ? ` — measurement ${done} (at most ${total}), cosine ${progress.cosine?.toFixed(5) ?? '—'}`
              : total > 0
                ? ` — ${done} / ${total}`
                : ''}
        </span>
        <button
          type="button"
          className="button button--small"
          onClick={onCancel}
          disabled={cancelling}
          data-testid="recover-cancel"
          ref={cancelButton}
        >
          {cancelling ? 'Cancelling…' : 'Cancel'}
        </button>
      </div>
      {/* Each bar says what it measures: the rung in flight, and the whole climb (its rungs of the most there may be). */}
      <CaptionedTrack label={rung ? 'This rung' : 'Recovery'} share={share} testId="recover-progress-bar" />
      {climbShare !== null && (
        <CaptionedTrack label="The ladder" share={climbShare} thin testId="recover-progress-climb" />
      )}
      <p className="muted small progress__times" data-testid="recover-progress-times">
        Elapsed {formatDuration(elapsed)}
        {rungLeft !== null && estimate && (
          <>
            {' · '}this rung about {formatDuration(rungLeft)} left (estimated {formatDuration(estimate.seconds)}:{' '}
            {estimate.basis})
          </>
        )}
        {budgetLeft !== null && (
          <>
            {' · '}time budget {formatDuration(budgetMinutes! * 60)}, {formatDuration(budgetLeft)} left
          </>
        )}
      </p>
      {rung?.why && (
        <p className="muted small progress__why" data-testid="recover-progress-why">
          Why this rung now: {rung.why}
        </p>
      )}
    </div>
  );
}

/** A share in [0, 1] edited as a percentage. */
function PercentField({
  label,
  value,
  onChange,
  testId,
  hint,
}: {
  label: string;
  value: number;
  onChange(v: number): void;
  testId: string;
  hint: string;
}) {
  return (
    <NumberField
      label={`${label} (%)`}
      title={hint}
      min={0}
      max={100}
      value={value * 100}
      testId={testId}
      onChange={(v) => onChange(v! / 100)}
    />
  );
}

/**
 * The targets mixed precision can aim at: its judge scores each candidate by one figure at most 1 (the error is
 * 1 − figure), over the calibration images' runs: the output cosine, top-1 or sequence agreement with the float model,
 * or a task figure through the chosen head (core mixedPrecisionAim). PSNR has no such bound.
 */
const MIXED_METRICS: readonly LadderMetric[] = ['cosine', 'top1', 'sequence', 'map50', 'map', 'miou'];

/** A switch of the recovery options or the ladder: a checkbox, then what it switches. */
function Switch({ children, ...box }: Omit<CheckboxProps, 'className'>) {
  return (
    <Checkbox className="recover-switch" {...box}>
      {' '}
      {children}
    </Checkbox>
  );
}

/** The mixed-precision budget's shares, each a percent field. */
const BUDGET_FIELDS = [
  { part: 'act16', label: '16-bit activations', hint: 'Share of the activation Q/DQ pairs that may be 16-bit (act16)' },
  { part: 'w16', label: '16-bit weights', hint: 'Share of the quantized weights that may be 16-bit (w16)' },
  { part: 'float', label: 'float nodes', hint: 'Share of the quantized nodes that may stay float (float)' },
] as const;

/** Automatic mixed precision: on or off, its budget (shares that may leave 8 bits) and the target it aims for. */
function MixedPrecisionChoice() {
  const o = useStudio((s) => s.recovery.options);
  const set = useStudio((s) => s.setRecoveryOptions);
  const head = useStudio(currentTaskHead);
  return (
    <div className="recover-mixed" data-testid="recover-mixed-options">
      <Switch checked={o.mixedPrecision} onChange={(mixedPrecision) => set({ mixedPrecision })} testId="recover-mixed">
        Mixed precision: the model stays 8-bit; what measurably hurts most goes to 16 bits, then a few nodes float
      </Switch>
      {o.mixedPrecision && (
        <div className="recover-mixed__budget">
          {BUDGET_FIELDS.map(({ part, label, hint }) => (
            <PercentField
              key={part}
              label={label}
              value={o.budget[part]}
              onChange={(share) => set({ budget: { ...o.budget, [part]: share } })}
              testId={`budget-${part}`}
              hint={hint}
            />
          ))}
          <TargetField
            metric={o.mixedMetric}
            value={o.mixedTarget}
            onChange={({ metric, value }) => set({ mixedMetric: metric, mixedTarget: value })}
            head={head}
            where="the calibration images"
            label="aim for"
            metrics={MIXED_METRICS}
            testIds={{ metric: 'mixed-metric', value: 'mixed-target', head: 'mixed-task-head' }}
          />
        </div>
      )}
    </div>
  );
}

function AlgorithmSwitches({ disabled }: { disabled: boolean }) {
  const o = useStudio((s) => s.recovery.options);
  const set = useStudio((s) => s.setRecoveryOptions);
  return (
    <fieldset className="recover-switches" disabled={disabled}>
      <legend className="field__label">Algorithms</legend>
      <MixedPrecisionChoice />
      <Switch checked={o.cle} onChange={(cle) => set({ cle })} testId="recover-cle">
        Cross-layer equalization (CLE)
      </Switch>
      <Switch
        title={`Functions written out as several nodes get Q/DQ at their input and output only. Also for 8-bit CNNs with written-out activations: the best route measured is these rules with Sequential ranges, then AdaRound (${FUNCTION_RULES_ROUTE}); the ladder tries them on such models by itself`}
        checked={o.attention}
        onChange={(attention) => set({ attention })}
        testId="recover-attention"
      >
        Attention and function rules (LayerNorm, GELU, HardSwish, SiLU as one op; Softmax on [0, 1])
      </Switch>
      <Switch checked={o.smoothQuant} onChange={(smoothQuant) => set({ smoothQuant })} testId="recover-smoothquant">
        SmoothQuant (activation outliers into the weights)
      </Switch>
      <NumberField
        label="SmoothQuant α"
        title="SmoothQuant's migration strength α (Quark SmoothAlpha): 0 leaves the activations as they are, 1 moves all of their range into the weights; also used by the ladder's SmoothQuant rungs"
        min={0}
        max={1}
        step={0.05}
        value={o.smoothAlpha}
        testId="recover-sq-alpha"
        onChange={(smoothAlpha) => set({ smoothAlpha: smoothAlpha! })}
      />
      <Switch checked={o.biasCorrection} onChange={(biasCorrection) => set({ biasCorrection })} testId="recover-bias">
        Bias correction
      </Switch>
      <label className="field field--inline">
        <span className="field__label">Fine-tune</span>
        <select
          className="select"
          value={o.finetune}
          onChange={(e) => set({ finetune: e.currentTarget.value as typeof o.finetune })}
          data-testid="recover-finetune"
        >
          <option value="none">none</option>
          <option value="adaround">AdaRound</option>
          <option value="adaquant">AdaQuant</option>
        </select>
      </label>
      <NumberField
        label="Iterations per layer"
        min={1}
        integer
        value={o.iterations}
        onChange={(iterations) => set({ iterations: iterations! })}
        testId="recover-iterations"
      />
      <NumberField
        label="Learning rate"
        min={0}
        above
        step={0.001}
        optional="default"
        value={o.learningRate}
        testId="recover-lr"
        onChange={(learningRate) => set({ learningRate })}
      />
      <NumberField
        label="AdaQuant stride"
        title="AdaQuant (this run's and the ladder's AdaQuant rungs) takes 1/k of the iterations at k times the learning rate: about k times fewer optimizer steps. Measured at 9 (from 450 iterations): a later AdaQuant rung cost less than half the CPU and read better held out on the PP-OCRv4 recognizer and YOLOX-nano, worse on the text detector; from 1000 iterations worse on the recognizer and YOLOX-nano too (bench/README.md ladder-budget). 1: as set (the default)"
        min={1}
        integer
        value={o.adaquantStride}
        testId="recover-adaquant-stride"
        onChange={(adaquantStride) => set({ adaquantStride: adaquantStride ?? 1 })}
      />
      <NumberField
        label="Tune sensitive layers (share)"
        title="Fine-tune only the layers whose measured added noise (each layer's, on 4 calibration samples) sums to this share of all, largest first; the others keep nearest rounding: cheaper, and measured better held out on one configuration of the attention recognizer, but worse on the CNN detectors and on the recognizer's ladder rungs. Empty or 1: every layer (the default); each fine-tuned rung says which it took"
        min={0}
        above
        max={1}
        step={0.05}
        optional="every layer"
        placeholder="1"
        value={o.sensitiveShare}
        testId="recover-sensitive-share"
        onChange={(sensitiveShare) => set({ sensitiveShare })}
      >
        <span className="muted small" data-testid="recover-sensitive-rule">
          {o.sensitiveShare === null
            ? 'every layer (the default: no subset measured at least as good everywhere)'
            : o.sensitiveShare === 1
              ? 'every layer'
              : `the layers holding ${Math.round(o.sensitiveShare * 100)} % of the added noise`}
        </span>
      </NumberField>
    </fieldset>
  );
}

/**
 * The climb's time budget in minutes (0.5 is 30 s); empty: none. What is wrong with the text is said beside it and the
 * text stays as typed (NumberField), with the budget the climb keeps meanwhile.
 */
function TimeBudgetField({ minutes, onChange }: { minutes: number | null; onChange(m: number | null): void }) {
  return (
    <NumberField
      label="Time budget (min)"
      title="Minutes the climb may take: each rung's cost is estimated before it runs; rungs that cannot finish in what is left are skipped and listed, and the best rung measured is kept. Empty: no budget"
      min={0}
      above
      optional="none"
      noun="a budget"
      what="minutes"
      hint="0.5 is 30 s"
      keeps={(m) => `the climb keeps ${m === null ? 'no budget' : formatDuration(m * 60)}`}
      value={minutes}
      onChange={onChange}
      testId="ladder-time-budget"
    />
  );
}

/**
 * What each kind of rung is expected to cost before anything is measured, from the model's weights and the samples
 * (core ladderPrior, what the climb itself starts planning with): to choose a budget by. The climb then corrects it by
 * the rungs it measures and shows each rung's own estimate before it runs.
 */
function PriorCosts() {
  const parameters = useStudio((s) => s.model.summary?.parameterCount ?? 0);
  const calibration = useStudio((s) => samplesOf(s.calibration).length);
  const evaluation = useStudio((s) => evaluationSamples(s).samples.length);
  const iterations = useStudio((s) => s.recovery.options.iterations);
  const metric = useStudio((s) => s.recovery.ladder.metric);
  if (parameters === 0 || calibration === 0) return null;
  const prior = ladderPrior(parameters, {
    calibrationSamples: calibration,
    evaluationSamples: evaluation,
    iterations,
    metric,
  });
  const about = (s: number) => formatDuration(Math.max(1, s));
  return (
    <p className="muted small recover-prior" data-testid="ladder-prior">
      Expected before anything is measured ({parameters.toLocaleString('en')} weights, {calibration} calibration and{' '}
      {evaluation} evaluation samples): a screening rung about {about(prior.screen)}, fine-tuning about{' '}
      {about(prior.finetune)} ({iterations} iterations a layer), mixed precision up to {about(prior.mixed)}, the
      exclusion search up to {about(prior.exclusions)}. The climb corrects these by the rungs it measures; each rung
      shows its own estimate before it runs, and one that cannot fit in what is left of the budget is skipped and
      listed.
    </p>
  );
}

function LadderTarget({ disabled }: { disabled: boolean }) {
  const c = useStudio((s) => s.recovery.ladder);
  const set = useStudio((s) => s.setLadderChoice);
  const head = useStudio(currentTaskHead);
  return (
    <fieldset className="recover-switches" disabled={disabled}>
      <legend className="field__label">Target on the evaluation data</legend>
      <TargetField
        metric={c.metric}
        value={c.value}
        onChange={set}
        head={head}
        where="the evaluation images"
        label="Metric"
        testIds={{ metric: 'ladder-metric', value: 'ladder-value', head: 'ladder-task-head' }}
      />
      <label className="field field--inline">
        <span className="field__label">Order</span>
        <select
          className="select"
          value={c.order}
          onChange={(e) => set({ order: e.currentTarget.value as LadderOrder })}
          data-testid="ladder-order"
        >
          <option value="eight-bit-first">8 bits first (mixed precision before 16-bit)</option>
          <option value="fastest">fastest (all formats screened, 16-bit too)</option>
        </select>
      </label>
      <Switch checked={c.allFormats} onChange={(allFormats) => set({ allFormats })} testId="ladder-all-formats">
        climb XINT8, A8W8 and A16W8 (else the current preset only)
      </Switch>
      <Switch checked={c.exclusions} onChange={(exclusions) => set({ exclusions })} testId="ladder-exclusions">
        end by excluding the most sensitive nodes
      </Switch>
      <TimeBudgetField minutes={c.timeBudgetMinutes} onChange={(timeBudgetMinutes) => set({ timeBudgetMinutes })} />
      <PriorCosts />
      <AimSelect value={c.aim} onChange={(aim) => set({ aim })} testId="ladder-aim" />
      <Switch checked={c.npuBf16} onChange={(npuBf16) => set({ npuBf16 })} testId="ladder-npu">
        judge every rung as the NPU runs it (float parts in BF16)
      </Switch>
    </fieldset>
  );
}

function Results() {
  const r = useStudio((s) => s.recovery);
  const ladderReport = useStudio((s) => s.ladderReport);
  const result = useStudio((s) => s.run.result);
  const modelName = useStudio((s) => s.model.fileName);
  const adoptedUrl = useObjectUrl(r.adopted ? result?.blob : null);
  const [reportError, setReportError] = useState<string | null>(null);
  // Live: the current rung's layers; afterwards the adopted rung's, else the last rung that fine-tuned.
  const tuned =
    r.rungs.find((x) => x.handle !== null && x.handle === r.adopted && x.finetune) ??
    r.rungs.findLast((x) => x.finetune);
  const shown = r.curves.length > 0 ? r.curves : (tuned?.finetune?.layers ?? []);
  const current = shown.at(-1);
  const targetMetric = r.climb?.target.metric ?? (r.mode === 'ladder' ? r.ladder.metric : 'cosine');
  const unjudged = ladderUnjudgedNote(r, DECISION_TARGET);
  const download = async () => {
    setReportError(null);
    try {
      const report = await ladderReport();
      if (report)
        downloadText(renderHtml(report), `${modelStem(modelName ?? 'model.onnx')}.ladder.report.html`, 'text/html');
    } catch (e) {
      setReportError(`${(e as Error).name}: ${(e as Error).message}`);
    }
  };
  return (
    <>
      {shown.length > 0 && (
        <div className="recover-curves" data-testid="recover-curves">
          {r.curves.length === 0 && tuned && (
            <p className="muted small recover-curves__title">Loss curves of {tuned.label}</p>
          )}
          {current && <CurveChart layer={current} />}
          <LayerLosses layers={shown} />
        </div>
      )}
      {r.rungs.length > 0 && (
        <RungTable rungs={r.rungs} chosen={r.climb ? r.climb.chosen : null} targetMetric={targetMetric} />
      )}
      {unjudged && (
        <p className="muted small" data-testid="ladder-unjudged">
          {unjudged}
        </p>
      )}
      <RanOn
        step={
          r.mode === 'ladder'
            ? 'The ladder (calibration, fine-tuning, measurement)'
            : 'Fine-tuning (calibration, tuning, measurement)'
        }
        backend={r.ranOn}
        testId="recover-ran-on"
      />
      {r.climb && (
        <p data-testid="ladder-summary">
          {r.climb.stopped === 'target'
            ? 'Reached'
            : r.climb.stopped === 'cancelled'
              ? 'Cancelled before reaching'
              : r.climb.stopped === 'budget'
                ? 'The time budget ran out before reaching'
                : r.climb.stopped === 'failed'
                  ? 'The climb failed before reaching'
                  : 'No rung reached'}{' '}
          {METRIC_LABEL[r.climb.target.metric as LadderMetric] ?? r.climb.target.metric} ≥ {r.climb.target.value}
          {r.climb.chosen >= 0
            ? `; chosen: ${r.rungs[r.climb.chosen]?.label} (${r.climb.stopped === 'target' ? 'the first that meets it' : 'the best measured'}).`
            : '; no rung could be measured.'}{' '}
          <span className="muted" data-testid="ladder-summary-order">
            {r.climb.order === 'fastest'
              ? 'Order: fastest (first format that meets the target, whatever its bits).'
              : 'Order: 8-bit first (16-bit formats only when no 8-bit route meets the target).'}
          </span>
        </p>
      )}
      {r.climb && <UseBest />}
      {r.climb && r.climb.skippedRungs.length > 0 && (
        <details className="small" data-testid="ladder-skipped">
          <summary>{skippedText(r.climb.skippedRungs)}</summary>
          <ul>
            {r.climb.skippedRungs.map((s) => (
              <li key={s.label}>
                <strong>{s.label}</strong>: {s.reason}
              </li>
            ))}
          </ul>
        </details>
      )}
      {r.climb?.shortfall && (
        <details className="small" data-testid="ladder-shortfall" open>
          <summary>Why the target was not met: which tensors block it, measured</summary>
          {shortfallSections(r.climb.shortfall).map((section) => (
            <div key={section.heading}>
              <strong>{section.heading}</strong>
              <ul>
                {section.lines.map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
            </div>
          ))}
        </details>
      )}
      <div className="step__actions">
        {r.climb && (
          <button type="button" className="button" onClick={() => void download()} data-testid="ladder-report">
            Download the ladder report (HTML)
          </button>
        )}
        {adoptedUrl && result && (
          <DownloadLink href={adoptedUrl} fileName={result.fileName} testId="recover-download" />
        )}
        {r.adopted && (
          <span className="muted small" data-testid="recover-adopted-note">
            {adoptedNote(
              result?.configName,
              r.rungs.some((g) => g.handle === r.adopted),
            )}
          </span>
        )}
      </div>
      {reportError && (
        <Callout kind="error" testId="ladder-report-error" title="The report could not be made">
          <p>{reportError}</p>
        </Callout>
      )}
    </>
  );
}

/**
 * The climb's chosen rung offered in one step where the climb ended short of its target (a Cancel, the time budget, a
 * failure, or no rung reaching it): the best model measured so far, without hunting for its row.
 */
function UseBest() {
  const r = useStudio((s) => s.recovery);
  const use = useStudio((s) => s.useRung);
  const best = r.climb && r.climb.chosen >= 0 ? r.rungs[r.climb.chosen] : undefined;
  if (!best?.handle || r.climb!.stopped === 'target') return null;
  const inUse = best.handle === r.adopted;
  return (
    <div className="step__actions">
      <button
        type="button"
        className="button button--primary"
        disabled={inUse || r.picking !== null}
        onClick={() => void use(best.handle!)}
        data-testid="ladder-use-best"
      >
        {inUse ? `In use: ${best.label}` : `Use the best model so far: ${best.label}`}
      </button>
      {isLostRung(best.handle) && (
        <span className="muted small" data-testid="ladder-rebuild-note">
          {r.picking === best.handle
            ? `Rebuilding ${best.label}: quantizing it again from its configuration (about ${formatDuration(best.seconds)})…`
            : `The worker that measured it stopped: using it quantizes it again from its configuration (about ${formatDuration(best.seconds)}).`}
        </span>
      )}
    </div>
  );
}

/**
 * What the download beside it is: the model the user picked with "Use this model", which stays the quantized model
 * when a later run lists other rungs (the climb's own "chosen" rung may be another one then).
 */
function adoptedNote(label: string | undefined, listed: boolean): string {
  const which = label
    ? `The model you picked (${label}${listed ? '' : ', from an earlier run'})`
    : 'The model you picked';
  return `${which} is the quantized model now: evaluate it below.`;
}

/** A column of the recover card: its options, then the button that runs with them. */
function RunColumn({
  label,
  onRun,
  testId,
  blockedBy,
  children,
}: {
  label: string;
  onRun: () => Promise<void>;
  testId: string;
  /** Whether the button is disabled, and the reason shown on it when there is one. */
  blockedBy: { disabled: boolean; why: string | null };
  children: ReactNode;
}) {
  return (
    <div className="recover-column">
      {children}
      <div className="step__actions">
        <button
          type="button"
          className="button button--primary"
          disabled={blockedBy.disabled}
          title={blockedBy.why ?? undefined}
          onClick={() => void onRun()}
          data-testid={testId}
        >
          {label}
        </button>
      </div>
    </div>
  );
}

export default function RecoveryScreen() {
  const r = useStudio((s) => s.recovery);
  const hasImages = useStudio((s) => s.calibration.images.length + s.calibration.npy.length > 0);
  const quantized = useStudio((s) => s.run.result !== null);
  const recover = useStudio((s) => s.recoverWithSettings);
  const climb = useStudio((s) => s.climbLadder);
  const cancel = useStudio((s) => s.cancelRecovery);
  const dismiss = useStudio((s) => s.dismissRecoveryError);
  const running = r.status === 'running';
  const floatNeeded = useStudio(floatModelNeeded);
  const blocked = { disabled: !hasImages || running || floatNeeded !== null, why: floatNeeded };
  // When a run ends, its Cancel button goes: focus that was on it moves to what the run left (the results), not the page.
  const outcome = useRef<HTMLDivElement>(null);
  const wasRunning = useRef(false);
  useEffect(() => {
    const active = document.activeElement;
    if (wasRunning.current && !running && (active === null || active === document.body))
      outcome.current?.focus({ preventScroll: true });
    wasRunning.current = running;
  }, [running]);
  return (
    <StepCard
      titleId="recover-title"
      data-testid="recover-card"
      data-recover-status={r.status}
      title="Recover accuracy"
    >
      <p className="muted small">
        The reference's best practice for missing an accuracy target: XINT8; then cross-layer equalization; then
        AdaRound; then AdaQuant; then A8W8 or A16W8; then excluding the most sensitive nodes. By default the ladder
        keeps to 8 bits as long as it can: the 8-bit formats (seconds each), their fine-tuning closest to the target
        first (minutes), then mixed precision (a few tensors at 16 bits within the budget) with AdaRound; only then
        A16W8. On models with written-out functions each format is also tried with the function rules (with CLE too
        where both helped), and every float-scale format with Sequential ranges: fine-tuning starts from the best of
        them. The fastest order measures every format first, 16-bit included, and takes the first that meets the target.
        Both skip what measurement says cannot win. Each step is calibrated, tuned on your calibration images and
        measured on the evaluation data, here in this tab.
      </p>
      {floatNeeded && (
        <Callout kind="info" testId="recover-float-needed" title="Needs the float model">
          {floatNeeded}
        </Callout>
      )}
      {!hasImages && (
        <Callout kind="info" testId="recover-no-data" title="No calibration images">
          Add images in the calibration step: recovery calibrates, fine-tunes and measures on them.
        </Callout>
      )}
      {hasImages && !quantized && (
        <p className="muted small" data-testid="recover-hint">
          Quantize first to see where you start; or climb the ladder right away.
        </p>
      )}
      <div className="recover-columns">
        <RunColumn label="Quantize with these" onRun={recover} testId="recover-button" blockedBy={blocked}>
          <AlgorithmSwitches disabled={running} />
        </RunColumn>
        <RunColumn label="Climb the ladder" onRun={climb} testId="ladder-button" blockedBy={blocked}>
          <LadderTarget disabled={running} />
        </RunColumn>
      </div>
      {running && (
        <ProgressLine
          progress={r.progress}
          onCancel={cancel}
          startedAt={r.startedAt}
          rungStartedAt={r.rungStartedAt}
          cancelling={r.cancelling}
          budgetMinutes={r.mode === 'ladder' ? r.ladder.timeBudgetMinutes : null}
        />
      )}
      <div ref={outcome} tabIndex={-1} className="recover-outcome" data-testid="recover-outcome">
        {r.status === 'cancelled' && (
          <p className="muted small" data-testid="recover-cancelled">
            Cancelled; what was measured before is kept below
            {r.mode === 'ladder' && r.rungs.some((g) => g.handle)
              ? ': every finished rung can still be used, and the ladder report downloads'
              : ''}
            .
          </p>
        )}
        {r.error && (
          <ErrorCallout
            error={r.error}
            testId="recover-error"
            title={`Recovery failed (${r.error.name})`}
            onDismiss={dismiss}
          />
        )}
        <Results />
      </div>
    </StepCard>
  );
}
