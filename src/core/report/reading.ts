/**
 * A result read for the user: each headline metric against its target (Quark's thresholds — output cosine
 * ≥ 0.98, PSNR ≥ 30 dB — or the user's own where set), whether it meets it and by how much, and the change
 * from the previous run. Pure: the page and the tests read a report through it.
 */
import type { OutputSummary } from '../metrics/metricSummary.ts';

export type ReadMetric = 'cosine' | 'psnr';

export interface Target {
  value: number;
  /** Quark's threshold, or the one the user set (a ladder or search target). */
  source: 'quark' | 'user';
}

/** Quark's thresholds for a good quantization. */
export const QUARK_TARGETS: Readonly<Record<ReadMetric, number>> = { cosine: 0.98, psnr: 30 };

interface Figures {
  readonly fidelity: { readonly meanCosine: number };
  readonly outputs: readonly OutputSummary[];
}

/**
 * The headline figures of a report: the mean output cosine, and the mean PSNR over the outputs that have one; at the
 * runtime's default options ('all') where the report measured them there (what a user's session computes), else its own.
 */
export function headlineFigures(
  whole: Figures & { readonly atDefault?: Figures | null },
): Record<ReadMetric, number | null> {
  const report = whole.atDefault ?? whole;
  const psnr = report.outputs
    .map((o) => o.metrics.psnr?.mean)
    .filter((v): v is number => v !== undefined && Number.isFinite(v));
  const cosine = report.fidelity.meanCosine;
  return {
    cosine: Number.isFinite(cosine) ? cosine : null,
    psnr: psnr.length ? psnr.reduce((a, b) => a + b, 0) / psnr.length : null,
  };
}

export interface MetricReading {
  metric: ReadMetric;
  value: number;
  target: Target;
  meets: boolean;
  /** value − target: negative when short of it. */
  margin: number;
  /** value − the previous run's value; null without a previous run (or without the metric there). */
  change: number | null;
}

/** Each headline figure the report has, read against its target and the previous run's figures. */
export function readResult(
  figures: Record<ReadMetric, number | null>,
  targets: Record<ReadMetric, Target>,
  previous: Record<ReadMetric, number | null> | null,
): MetricReading[] {
  const out: MetricReading[] = [];
  for (const metric of ['cosine', 'psnr'] as const) {
    const value = figures[metric];
    if (value === null) continue;
    const target = targets[metric];
    const before = previous?.[metric] ?? null;
    out.push({
      metric,
      value,
      target,
      meets: value >= target.value,
      margin: value - target.value,
      change: before === null ? null : value - before,
    });
  }
  return out;
}

/**
 * The reading a next step aims at: the first figure short of its target (cosine before PSNR), or null when all meet.
 * A search or a ladder toward a target already met (cosine 0.983 ≥ 0.98 while PSNR read 28.5 dB < 30) stops at once.
 */
export function aimedReading(readings: readonly MetricReading[]): MetricReading | null {
  return readings.find((r) => !r.meets) ?? null;
}
