/**
 * Text and numbers as the HTML report writes them: escaping (tensor and node names are user data
 * and may hold `<`, `&` or quotes), fixed number formats per quantity, and the severity classes the
 * tables and charts colour by. Thresholds follow Quark's reading of its metrics (cosine above about
 * 0.98 is good, PSNR above about 30 dB is low noise) and apply the same 30 dB to SQNR. Formatting
 * only; no markup beyond single elements. The page's tables use the same labels and formats, so the page and
 * the download read alike.
 */
import type { MetricName } from '../metrics/metricSummary.ts';

/** Text safe inside element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** A number with `digits` decimals; ∞, −∞ and "n/a" (NaN) spelled out. */
export function fixed(value: number | null | undefined, digits: number): string {
  if (value === null || value === undefined || Number.isNaN(value)) return 'n/a';
  if (value === Infinity) return '∞';
  if (value === -Infinity) return '−∞';
  return value.toFixed(digits).replace(/^-/, '−');
}

/** A cosine: 6 decimals (differences at 1e-4 matter near 1). */
export const formatCosine = (v: number | null | undefined) => fixed(v, 6);
/** A value in dB: 2 decimals. */
export const formatDb = (v: number | null | undefined) => fixed(v, 2);

/**
 * An error jump (core/metrics/layerwiseJumps.ts): "−15.54 dB", the SQNR lost between a node's inputs and its output;
 * or, where the node reads nothing compared (only weights and constants: exact, so the drop is infinite), "exact
 * inputs → 39.12 dB", the SQNR its output fell to, rather than an infinite drop.
 */
export function formatJump(jump: { readonly drop: number; readonly sqnr: number }): string {
  return jump.drop === Infinity ? `exact inputs → ${formatDb(jump.sqnr)} dB` : `−${formatDb(jump.drop)} dB`;
}

/** A real value of any magnitude: 4 significant digits, exponent outside 1e-3 … 1e5. */
export function formatValue(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return fixed(v as number, 0);
  if (v === 0) return '0';
  const a = Math.abs(v);
  const text = a >= 1e-3 && a < 1e5 ? String(Number(v.toPrecision(4))) : v.toExponential(3);
  return text.replace(/^-/, '−');
}

/** Seconds as "0.42 s", "12.3 s" or "2 min 05 s". */
export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return 'n/a';
  if (s < 10) return `${s.toFixed(2)} s`;
  if (s < 120) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${String(Math.round(s - 60 * m)).padStart(2, '0')} s`;
}

/** Bytes as B / KB / MB (powers of 1024). */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return 'n/a';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}

export type Severity = 'good' | 'fair' | 'poor' | 'none';

/** Cosine: ≥ 0.99 good, ≥ 0.98 fair (Quark's "good" line), lower poor. */
export function cosineSeverity(v: number): Severity {
  if (Number.isNaN(v)) return 'none';
  return v >= 0.99 ? 'good' : v >= 0.98 ? 'fair' : 'poor';
}

/** SQNR or PSNR in dB: ≥ 30 good, ≥ 20 fair, lower poor. */
export function dbSeverity(v: number): Severity {
  if (Number.isNaN(v)) return 'none';
  return v >= 30 ? 'good' : v >= 20 ? 'fair' : 'poor';
}

/** Each output metric's name as tables show it (Quark's evaluate summary). */
export const METRIC_LABELS: Readonly<Record<MetricName, string>> = {
  cosine: 'Cosine similarity',
  l2: 'L2 distance',
  psnr: 'PSNR (dB)',
  ssim: 'SSIM',
  top1: 'Top-1 agreement',
  top5: 'Top-5 agreement',
  stepTop1: 'Top-1 agreement per step',
  sequence: 'Sequences decoded alike (greedy CTC)',
  cer: 'Character error rate',
  decision: 'Decision agreement (same side of the threshold, 0.5 unless set)',
  absError: 'Absolute error',
};

/** A metric's value in its own format: cosine to 6 decimals, PSNR in dB to 2, CER in percent to 2, the others as formatValue. */
export function metricText(name: MetricName, v: number): string {
  if (name === 'cosine') return formatCosine(v);
  if (name === 'psnr') return formatDb(v);
  if (name === 'cer') return Number.isFinite(v) ? `${(v * 100).toFixed(2)} %` : formatValue(v);
  return formatValue(v);
}

/** A ladder rung's number by metric name: PSNR in dB, shares (top-1, sequence match, CER) in percent, cosine to 6 decimals. */
export function ladderValueText(name: string, v: number): string {
  if (!Number.isFinite(v)) return '—';
  if (name === 'psnr') return `${formatDb(v)} dB`;
  if (name === 'top1' || name === 'sequence' || name === 'cer' || name === 'decision')
    return `${(v * 100).toFixed(1)} %`;
  return formatCosine(v);
}

/** The colour of a metric's mean: cosine and PSNR have thresholds, the others none. */
export function metricSeverity(name: MetricName, mean: number): Severity {
  if (name === 'cosine') return cosineSeverity(mean);
  if (name === 'psnr') return dbSeverity(mean);
  return 'none';
}
