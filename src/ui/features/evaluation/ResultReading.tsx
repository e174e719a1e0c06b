/**
 * A result read for the user, above the numbers: each headline metric against its target (Quark's
 * thresholds, or the user's own ladder or search target where set), the change from the previous run,
 * and the next step the measurements suggest, one click away: keep float the weighted layer (Conv, Gemm,
 * MatMul) where the per-layer comparison finds the largest error jump and quantize again — a jump at an
 * elementwise node between quantized ones changes nothing when that node is excluded (measured on the
 * sample: Add.214, cosine unchanged to 6 digits), so then the measured exclusion search instead; use the
 * best 8-bit rung the ladder measured for this model; or climb the ladder to the target. When the target
 * is met: the download.
 */
import type { ReactNode } from 'react';
import { formatCosine, formatDb, formatJump } from '../../../core/report/htmlText.ts';
import {
  aimedReading,
  headlineFigures,
  readResult,
  type MetricReading,
  type ReadMetric,
} from '../../../core/report/reading.ts';
import { useObjectUrl } from '../../components/useObjectUrl.ts';
import { useStudio } from '../../store/index.ts';
import type { EvaluationOutcome } from '../../store/evaluationSlice.ts';
import { resultTargets } from './targets.ts';
import { DownloadLink } from '../../components/DownloadLink.tsx';

const WEIGHTED = /^(Conv|ConvTranspose|Gemm|MatMul)$/;

const LABELS: Record<ReadMetric, string> = { cosine: 'Mean output cosine', psnr: 'Mean PSNR' };

const figure = (metric: ReadMetric, v: number) => (metric === 'cosine' ? formatCosine(v) : `${formatDb(v)} dB`);
/** A reading's target value as the page writes it: a cosine bare, a PSNR in dB. */
const targetText = (r: MetricReading) => (r.metric === 'cosine' ? String(r.target.value) : `${r.target.value} dB`);
const delta = (metric: ReadMetric, v: number) => {
  const text = metric === 'cosine' ? Math.abs(v).toFixed(4) : `${Math.abs(v).toFixed(2)} dB`;
  return `${v > 0 ? '+' : v < 0 ? '−' : '±'}${text}`;
};

function Reading({ r, previousLabel }: { r: MetricReading; previousLabel: string | null }) {
  return (
    <li
      className={`reading__item reading__item--${r.meets ? 'meets' : 'short'}`}
      data-testid={`reading-${r.metric}`}
      data-meets={r.meets ? 'true' : 'false'}
    >
      <span className="reading__mark" aria-hidden="true">
        {r.meets ? '✓' : '✗'}
      </span>
      <span>
        {LABELS[r.metric]} <strong>{figure(r.metric, r.value)}</strong>{' '}
        <span data-testid="reading-verdict">
          {r.meets ? 'meets' : 'is below'} the target ≥ {targetText(r)} (
          {r.target.source === 'quark' ? "Quark's threshold" : 'your target'})
          {r.meets ? '' : `, short by ${delta(r.metric, -r.margin).slice(1)}`}
        </span>
        .{' '}
        <span className="muted" data-testid="reading-change">
          {r.change === null
            ? 'The first evaluation of this model: the next one will be compared with it.'
            : `${delta(r.metric, r.change)} since the previous run (${previousLabel}).`}
        </span>
      </span>
    </li>
  );
}

function scrollToRecovery() {
  document.querySelector('[data-testid="recover-card"]')?.scrollIntoView({ block: 'start', behavior: 'smooth' });
}

function NextStep({ result, readings }: { result: EvaluationOutcome; readings: MetricReading[] }) {
  const run = useStudio((s) => s.run.result);
  const busy = useStudio(
    (s) => s.evaluation.status === 'running' || s.run.status === 'running' || s.recovery.status === 'running',
  );
  const hasImages = useStudio((s) => s.calibration.images.length + s.calibration.npy.length > 0);
  const rungs = useStudio((s) => s.recovery.rungs);
  const adopted = useStudio((s) => s.recovery.adopted);
  const retry = useStudio((s) => s.keepFloatAndRetry);
  const adoptRung = useStudio((s) => s.useRung); // not a hook: the store's "Use this model" action
  const setLadder = useStudio((s) => s.setLadderChoice);
  const climb = useStudio((s) => s.climbLadder);
  const url = useObjectUrl(run?.blob);
  // The figure the search and the ladder aim at: the first one short of its target.
  const aimed = aimedReading(readings);
  const aim = aimed && `${aimed.metric === 'cosine' ? 'cosine' : 'PSNR'} ≥ ${targetText(aimed)}`;
  // The largest error jump at a weighted layer the quantization touched: excluding an elementwise node between
  // quantized neighbours keeps every Q/DQ around it, so the model computes the same.
  const precisions = result.report.precisions;
  const jump = result.report.layers?.jumps.find(
    (j) =>
      WEIGHTED.test(j.opType) &&
      (!precisions ||
        (precisions[j.node] && precisions[j.node].label !== 'float' && precisions[j.node].label !== 'BF16')),
  );
  const setSuggestMetric = useStudio((s) => s.setSuggestMetric);
  const search = useStudio((s) => s.suggestExclusions);
  const canSearch = useStudio((s) => s.calibration.result !== null && !s.run.settings.bf16);
  const alreadyFloat = useStudio(
    (s) => !!jump && s.exclusions.entries.some((e) => e.kind === 'nodes' && e.nodes.includes(jump.node as never)),
  );
  const bestRung = rungs
    .filter((r) => r.met && r.handle && r.handle !== adopted && !/16/.test(r.label))
    .sort((a, b) => b.score - a.score)[0];

  if (readings.every((r) => r.meets)) {
    return (
      <div className="reading__next" data-testid="next-step" data-step="download">
        <span>Next step: the model meets its target{run?.fileName ? '' : '.'}</span>
        {url && run && (
          <DownloadLink
            className="button button--primary button--small"
            href={url}
            fileName={run.fileName}
            testId="next-step-download"
          />
        )}
      </div>
    );
  }
  return (
    <div
      className="reading__next"
      data-testid="next-step"
      data-step={jump && !alreadyFloat ? 'exclude' : bestRung ? 'rung' : aimed && canSearch ? 'search' : 'ladder'}
    >
      <span className="reading__next-title">
        Next step{jump && !alreadyFloat ? ', from the per-layer comparison' : ''}:
      </span>
      {jump && !alreadyFloat && (
        <NextOption
          primary
          disabled={busy}
          testId="next-step-exclude"
          onClick={() => void retry(jump.node, `largest error jump, ${formatJump(jump)}`)}
          note={
            <>
              the largest error jump at a quantized layer (SQNR {formatJump(jump)} there, {jump.opType}); the result is
              then compared with this one.
            </>
          }
        >
          Keep {jump.node} float and quantize again
        </NextOption>
      )}
      {(!jump || alreadyFloat) && aimed && canSearch && (
        <NextOption
          primary
          disabled={busy}
          testId="next-step-search"
          onClick={() => {
            setSuggestMetric(aimed.metric, aimed.target.value);
            document
              .querySelector('[data-testid="suggest-card"]')
              ?.scrollIntoView({ block: 'start', behavior: 'smooth' });
            void search();
          }}
          note={
            <>
              {!jump && result.report.layers?.jumps.length
                ? `the error jumps are at nodes without weights of their own (${result.report.layers.jumps
                    .slice(0, 3)
                    .map((j) => j.opType)
                    .join(', ')}), where keeping one float changes nothing by itself: `
                : ''}
              the search measures each candidate, nodes and tails, and keeps what helps.
            </>
          }
        >
          Search for the exclusions that reach {aim}
        </NextOption>
      )}
      {bestRung && (
        <NextOption
          disabled={busy}
          testId="next-step-rung"
          onClick={() => void adoptRung(bestRung.handle!)}
          note={
            <>
              the best 8-bit route the ladder measured for this model (score {bestRung.score.toFixed(4)}, meets its
              target).
            </>
          }
        >
          Use {bestRung.label}
        </NextOption>
      )}
      {!bestRung && aimed && (
        <NextOption
          disabled={busy || !hasImages}
          testId="next-step-ladder"
          onClick={() => {
            setLadder({ metric: aimed.metric, value: aimed.target.value });
            scrollToRecovery();
            void climb();
          }}
          note={
            <>
              measures the 8-bit routes first (formats, CLE, fine-tuning, mixed precision), then 16-bit, and keeps the
              first that meets it.
            </>
          }
        >
          Climb the ladder to {aim}
        </NextOption>
      )}
    </div>
  );
}

/** One next step: its button, then a note saying what it does. */
function NextOption({
  primary,
  disabled,
  testId,
  onClick,
  note,
  children,
}: {
  primary?: boolean;
  disabled: boolean;
  testId: string;
  onClick: () => void;
  note: ReactNode;
  children: ReactNode;
}) {
  return (
    <span className="reading__option">
      <button
        type="button"
        className={`button ${primary ? 'button--primary ' : ''}button--small`}
        disabled={disabled}
        data-testid={testId}
        onClick={onClick}
      >
        {children}
      </button>
      <span className="muted small">{note}</span>
    </span>
  );
}

export function ResultReading({ result }: { result: EvaluationOutcome }) {
  const ladder = useStudio((s) => s.recovery.ladder);
  const suggestTarget = useStudio((s) => s.evaluation.suggest.target);
  const targets = resultTargets({ recovery: { ladder }, evaluation: { suggest: { target: suggestTarget } } });
  const previous = useStudio((s) => s.evaluation.previous);
  const readings = readResult(headlineFigures(result.report), targets, previous?.figures ?? null);
  if (readings.length === 0) return null;
  return (
    <section
      className="reading"
      aria-label="What the result means"
      data-testid="result-reading"
      data-verdict={readings.every((r) => r.meets) ? 'meets' : 'short'}
    >
      <ul className="reading__list">
        {readings.map((r) => (
          <Reading key={r.metric} r={r} previousLabel={previous?.label ?? null} />
        ))}
      </ul>
      <NextStep result={result} readings={readings} />
    </section>
  );
}
