/**
 * Per-sample metric values folded into mean / min / max per metric per output, and the text report.
 *
 * Quark's evaluate tool (quark/onnx/tools/evaluate.py, `main`) computes each metric once per sample
 * (one saved output tensor per inference) and prints, in this order, the mean and the worst value
 * of each: `Mean cos similarity`, `Min cos similarity`, `Mean l2 distance`, `Max l2 distance`,
 * `Mean psnr`, `Min psnr`, `Mean ssim`, `Min ssim`, one `label: value` per line, values as numpy
 * prints float32 scalars. We keep all three statistics, fold them with an associative merge so
 * batches and workers combine in any order, and render Quark's eight lines per output (a header per
 * output when there are several, since Quark compares one output at a time). NaN propagates as in
 * numpy's mean, min and max. Must not compute metrics or hold tensors: numbers in, numbers out.
 */

import { numpyFloat32Text } from './numpyText.ts';
import { psnrFromMse } from './psnr.ts';
import { characterErrorRate } from './sequence.ts';

/** A running statistic: fold values in with `foldValue`, combine partial ones with `mergeStats`. */
export interface RunningStat {
  readonly count: number;
  readonly sum: number;
  readonly min: number;
  readonly max: number;
  readonly nanCount: number;
}

/** The statistic of no values; the identity of `mergeStats`. */
export const EMPTY_STAT: RunningStat = { count: 0, sum: 0, min: Infinity, max: -Infinity, nanCount: 0 };

/** The statistic with one more value in it. */
export function foldValue(stat: RunningStat, value: number): RunningStat {
  if (Number.isNaN(value)) return { ...stat, count: stat.count + 1, nanCount: stat.nanCount + 1 };
  return {
    count: stat.count + 1,
    sum: stat.sum + value,
    min: Math.min(stat.min, value),
    max: Math.max(stat.max, value),
    nanCount: stat.nanCount,
  };
}

/** The statistic of the values of both (associative and commutative, up to float rounding of sum). */
export function mergeStats(a: RunningStat, b: RunningStat): RunningStat {
  return {
    count: a.count + b.count,
    sum: a.sum + b.sum,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
    nanCount: a.nanCount + b.nanCount,
  };
}

/** Mean, min and max of a metric over samples (in the metric's own unit). */
export interface MetricStat {
  /** Samples folded in, NaN ones included. */
  readonly count: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
}

/** Mean, min and max of a running statistic: all NaN if any value was NaN (numpy) or there were none. */
export function finishStat(stat: RunningStat): MetricStat {
  if (stat.count === 0 || stat.nanCount > 0) return { count: stat.count, mean: NaN, min: NaN, max: NaN };
  return { count: stat.count, mean: stat.sum / stat.count, min: stat.min, max: stat.max };
}

/** Mean, min and max of a list of per-sample values. */
export function summarizeValues(values: ArrayLike<number>): MetricStat {
  let stat = EMPTY_STAT;
  for (let i = 0; i < values.length; i++) stat = foldValue(stat, values[i]);
  return finishStat(stat);
}

/** The metrics a summary knows, in report order. */
export const METRIC_NAMES = [
  'cosine',
  'l2',
  'psnr',
  'ssim',
  'top1',
  'top5',
  'stepTop1',
  'sequence',
  'cer',
  'decision',
  'absError',
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

/**
 * What one sample carries besides its reported metrics: its PSNR's mean squared error and peak, so the summary's
 * mean PSNR is the set's (20·log10(peak over the set) − 10·log10(mean of the samples' MSE)), not an average of
 * decibels, where one sample whose output matches exactly (+100 dB by Quark's guard) would hide a ruined one.
 */
export const PSNR_PARTS = ['mse', 'peak'] as const;
/**
 * The same for the character error rate: each sample's edit distance and its float decoding's length, so the summary's
 * mean CER is the set's, pooled (errors over characters), as `qstudio evaluate --task text` counts it; not an average
 * of the lines' rates, where a short line weighs as much as a long one (the ladder read 1.81 % against 2.48 %).
 */
export const CER_PARTS = ['charErrors', 'referenceChars'] as const;
type SamplePart = (typeof PSNR_PARTS)[number] | (typeof CER_PARTS)[number];

/**
 * 1 on a sample whose quantized output is all zeros while the float one is not (0 otherwise): the case where Quark's
 * cosine is 0 / 0, counted so the report names it rather than leaving a reader to guess from a cosine of 0.
 */
export const ZERO_OUTPUT = 'zeroOutput';

/** One sample's metric values for one output; a metric not computed is absent. */
export type SampleMetrics = Partial<Record<MetricName | SamplePart | typeof ZERO_OUTPUT, number>>;

export interface SampleRecord {
  /** The compared output's tensor name. */
  readonly output: string;
  readonly metrics: SampleMetrics;
}

export interface OutputSummary {
  readonly output: string;
  readonly metrics: Partial<Record<MetricName, MetricStat>>;
  /** Samples whose quantized output is all zeros against a non-zero float one, of those checked; absent when none. */
  readonly allZero?: { readonly samples: number; readonly of: number };
}

/** Per output (in order of first appearance), mean / min / max of each metric over its samples. */
export function summarizeSamples(records: readonly SampleRecord[]): OutputSummary[] {
  const running = new Map<string, Partial<Record<MetricName | SamplePart | typeof ZERO_OUTPUT, RunningStat>>>();
  for (const { output, metrics } of records) {
    let stats = running.get(output);
    if (!stats) running.set(output, (stats = {}));
    for (const name of [...METRIC_NAMES, ...PSNR_PARTS, ...CER_PARTS, ZERO_OUTPUT] as const) {
      const value = metrics[name];
      if (value !== undefined) stats[name] = foldValue(stats[name] ?? EMPTY_STAT, value);
    }
  }
  return [...running].map(([output, stats]) => {
    const metrics: Partial<Record<MetricName, MetricStat>> = {};
    for (const name of METRIC_NAMES) {
      const stat = stats[name];
      if (stat) metrics[name] = finishStat(stat);
    }
    const psnr = metrics.psnr;
    const mse = stats.mse && finishStat(stats.mse);
    const peak = stats.peak && finishStat(stats.peak);
    if (psnr && mse && peak && mse.count === psnr.count && Number.isFinite(psnr.mean)) {
      metrics.psnr = { ...psnr, mean: psnrFromMse(mse.mean, peak.max) };
    }
    const cer = metrics.cer;
    const errors = stats.charErrors && finishStat(stats.charErrors);
    const chars = stats.referenceChars && finishStat(stats.referenceChars);
    if (cer && errors && chars && errors.count === cer.count)
      metrics.cer = { ...cer, mean: characterErrorRate(errors.mean, chars.mean) };
    const zero = stats[ZERO_OUTPUT];
    return zero && zero.sum > 0
      ? { output, metrics, allZero: { samples: zero.sum, of: zero.count } }
      : { output, metrics };
  });
}

/** How each metric is named in the report, and which extreme is its worst case. */
const REPORT: Readonly<Record<MetricName, { label: string; worst: 'min' | 'max' }>> = {
  cosine: { label: 'cos similarity', worst: 'min' },
  l2: { label: 'l2 distance', worst: 'max' },
  psnr: { label: 'psnr', worst: 'min' },
  ssim: { label: 'ssim', worst: 'min' },
  top1: { label: 'top1 agreement', worst: 'min' },
  top5: { label: 'top5 agreement', worst: 'min' },
  stepTop1: { label: 'step top1 agreement', worst: 'min' },
  sequence: { label: 'sequence match', worst: 'min' },
  cer: { label: 'character error rate', worst: 'max' },
  decision: { label: 'decision agreement', worst: 'min' },
  absError: { label: 'absolute error', worst: 'max' },
};

export interface RenderOptions {
  /** How a number is written. Default: as numpy prints a float32 scalar (what Quark shows). */
  readonly format?: (value: number) => string;
  /** Print Mean, Min and Max of every metric rather than Quark's mean and worst. Default false. */
  readonly allStats?: boolean;
  /** Print a `[output]` line before each output's block. Default: only when there are several outputs. */
  readonly headers?: boolean;
}

/** 'quantized output is all zeros on N of M samples' where it was on any, else null. */
export function allZeroNote(summary: OutputSummary): string | null {
  const z = summary.allZero;
  return z ? `quantized output is all zeros on ${z.samples} of ${z.of} samples (cosine counts each as 0)` : null;
}

/** One output's all-zero count and its note, for a page or report line beside the cosine. */
export interface AllZeroLine {
  readonly output: string;
  readonly samples: number;
  readonly of: number;
  /** allZeroNote's text, after the output's name where there are several outputs. */
  readonly text: string;
}

/** The outputs whose quantized output was all zeros on any sample, each with its note; empty when none. */
export function allZeroLines(summaries: readonly OutputSummary[]): AllZeroLine[] {
  return summaries.flatMap((s) => {
    const note = allZeroNote(s);
    if (!note || !s.allZero) return [];
    const text = summaries.length > 1 ? `${s.output}: ${note}` : note;
    return [{ output: s.output, samples: s.allZero.samples, of: s.allZero.of, text }];
  });
}

/**
 * The summary as text, one `label: value` line each, e.g. `Mean cos similarity: 0.9867`, in Quark's
 * order (cosine, L2, PSNR, SSIM; then our top-1 / top-5 agreement and the sequence metrics). Ends with a newline.
 */
export function renderSummary(summaries: readonly OutputSummary[], options: RenderOptions = {}): string {
  const format = options.format ?? numpyFloat32Text;
  const headers = options.headers ?? summaries.length > 1;
  const blocks = summaries.map((summary) => {
    const { output, metrics } = summary;
    const lines = headers ? [`[${output}]`] : [];
    const note = allZeroNote(summary);
    if (note) lines.push(note);
    for (const name of METRIC_NAMES) {
      const stat = metrics[name];
      if (!stat) continue;
      const { label, worst } = REPORT[name];
      lines.push(`Mean ${label}: ${format(stat.mean)}`);
      if (options.allStats) {
        lines.push(`Min ${label}: ${format(stat.min)}`, `Max ${label}: ${format(stat.max)}`);
      } else {
        lines.push(`${worst === 'min' ? 'Min' : 'Max'} ${label}: ${format(stat[worst])}`);
      }
    }
    return lines.join('\n');
  });
  return blocks.length === 0 ? '' : `${blocks.join('\n\n')}\n`;
}
