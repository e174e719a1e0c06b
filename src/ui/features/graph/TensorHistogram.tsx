/**
 * The histogram picture of a calibrated tensor in the node inspector: its float values on the first
 * few calibration samples (one float run in the evaluation worker, evaluationRemote.tensorHistograms),
 * binned over the calibrated range widened to the values seen, with the calibrated range marked. So
 * the user sees whether the range clips the tails or spends its levels on a few outliers.
 *
 * Computed on demand ("Show histogram") and kept per tensor until the calibration changes (a new
 * calibration or a new model is a new result object, so the cache is keyed by it). Must not compute
 * anything itself: the numbers come from the worker.
 */
import { useEffect, useState } from 'react';
import type { ReportHistogram } from '../../../core/report/index.ts';
import { evaluationRemote } from '../../remote/evaluationRemote.ts';
import { samplesOf } from '../../store/samples.ts';
import { useStudio, type StudioState } from '../../store/index.ts';
import { Spinner } from '../../components/Spinner.tsx';

/** Calibration samples a histogram runs on: a quick picture, not a calibration. */
export const HISTOGRAM_SAMPLES = 4;

type Entry =
  | { status: 'running' }
  | { status: 'done'; histogram: ReportHistogram | null; samples: number }
  | { status: 'error'; name: string; message: string };

/** Calibration result → tensor → its histogram (or the run computing it). */
const cache = new WeakMap<object, Map<string, Entry>>();
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((l) => l());

function entriesOf(result: object): Map<string, Entry> {
  let m = cache.get(result);
  if (!m) cache.set(result, (m = new Map()));
  return m;
}

/** Starts the histogram of `tensor` on the worker unless it is known or on its way. */
function compute(state: StudioState, tensor: string, range: readonly [number, number]): void {
  const result = state.calibration.result;
  const handle = state.model.handle;
  if (!result || !handle) return;
  const entries = entriesOf(result);
  const known = entries.get(tensor);
  if (known && known.status !== 'error') return;
  entries.set(tensor, { status: 'running' });
  notify();
  evaluationRemote
    .tensorHistograms(handle, {
      tensors: { [tensor]: [range[0], range[1]] },
      samples: samplesOf(state.calibration),
      spec: state.calibration.spec,
      maxSamples: HISTOGRAM_SAMPLES,
    })
    .then((found) =>
      entries.set(tensor, { status: 'done', histogram: found.histograms[tensor] ?? null, samples: found.used }),
    )
    .catch((e: Error) =>
      entries.set(tensor, { status: 'error', name: e?.name || 'Error', message: e?.message ?? String(e) }),
    )
    .finally(notify);
}

const num = (v: number) =>
  Number.isInteger(v) ? String(v) : Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3 ? v.toExponential(3) : v.toPrecision(4);

/** Bars over [h.min, h.max]; the calibrated range shaded with its ends marked; zero as a thin line. */
export function HistogramPicture({
  histogram: h,
  range,
}: {
  histogram: ReportHistogram;
  range: readonly [number, number];
}) {
  const width = 200;
  const height = 40;
  const n = Math.max(h.counts.length, 1);
  const top = Math.max(1, ...h.counts);
  const span = h.max - h.min || 1;
  const x = (v: number) => Math.min(width, Math.max(0, ((v - h.min) / span) * width));
  const [lo, hi] = range;
  return (
    <svg
      className="tensor-histogram"
      data-testid="tensor-histogram"
      viewBox={`0 0 ${width} ${height}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={`histogram of the values from ${num(h.min)} to ${num(h.max)}, calibrated range ${num(lo)} to ${num(hi)}`}
    >
      <rect className="tensor-histogram__range" x={x(lo)} y={0} width={Math.max(0.5, x(hi) - x(lo))} height={height} />
      {h.counts.map((c, i) => {
        const bh = (c / top) * (height - 2);
        return (
          <rect
            key={i}
            className="tensor-histogram__bar"
            x={(i / n) * width}
            y={height - bh}
            width={Math.max(width / n - 0.5, 0.5)}
            height={bh}
          />
        );
      })}
      <rect className="tensor-histogram__edge" x={x(lo) - 0.5} y={0} width={1} height={height}>
        <title>calibrated min {num(lo)}</title>
      </rect>
      <rect className="tensor-histogram__edge" x={x(hi) - 0.5} y={0} width={1} height={height}>
        <title>calibrated max {num(hi)}</title>
      </rect>
      {h.min < 0 && h.max > 0 && (
        <rect className="tensor-histogram__zero" x={x(0) - 0.25} y={0} width={0.5} height={height} />
      )}
    </svg>
  );
}

/** "Show histogram" for one calibrated tensor, then the picture (or a spinner, or the named error). */
export function TensorHistogram({ tensor, range }: { tensor: string; range: readonly [number, number] }) {
  const result = useStudio((s) => s.calibration.result);
  const [, rerender] = useState(0);
  useEffect(() => {
    const l = () => rerender((k) => k + 1);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
  if (!result) return null;
  const entry = entriesOf(result).get(tensor);
  const show = () => compute(useStudio.getState(), tensor, range);
  if (!entry) {
    return (
      <button type="button" className="button button--small button--quiet" data-testid="show-histogram" onClick={show}>
        Show histogram
      </button>
    );
  }
  if (entry.status === 'running') {
    return (
      <span className="small muted" data-testid="histogram-running">
        <Spinner size={12} /> histogram of the first {HISTOGRAM_SAMPLES} calibration samples…
      </span>
    );
  }
  if (entry.status === 'error') {
    return (
      <span className="small" data-testid="histogram-error" role="alert">
        No histogram: <strong>{entry.name}</strong> {entry.message}{' '}
        <button type="button" className="button button--small button--quiet" onClick={show}>
          Try again
        </button>
      </span>
    );
  }
  if (!entry.histogram) return <span className="small muted">No histogram: not a float tensor.</span>;
  return (
    <span className="tensor-histogram__wrap">
      <HistogramPicture histogram={entry.histogram} range={range} />
      <span className="small muted">
        {entry.samples} sample{entry.samples === 1 ? '' : 's'} · {num(entry.histogram.min)} … {num(entry.histogram.max)}{' '}
        · shaded: calibrated range
      </span>
    </span>
  );
}
