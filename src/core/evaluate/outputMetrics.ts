/**
 * Which metrics one sample's output gets, and the number a search optimises.
 *
 * Quark's evaluate tool computes cosine, L2, PSNR and SSIM on every saved output. Cosine, L2 and
 * PSNR apply to any tensor; SSIM is an image metric and only means something on an output that is
 * an image (rank 4, both spatial sides at least the 11-pixel window), so by default it is computed
 * there only; top-1 / top-5 agreement likewise only on classifier-shaped outputs ([classes] or
 * [N, classes]), and the sequence metrics (step top-1, greedy-CTC sequence match, CER) only on outputs
 * that are sequences of class probabilities ([batch, steps, classes], every row summing to 1, as a CTC
 * recognizer's softmax head gives; a detector's [1, boxes, 85] rows do not). An output of one number a sample (a
 * voice-activity probability, a wake-word score) gets its absolute error and, where the float value is a probability
 * (in [0, 1]), whether both sides take the same decision at a threshold (0.5 by default), instead of a cosine, L2 and
 * PSNR over one number (a cosine of two positive numbers is always 1). Callers can force any on or off. The definitions are those of ../metrics. Must
 * not run models.
 */

import {
  classifierAgreement,
  definedCosine,
  zeroSide,
  ZERO_OUTPUT,
  l2Distance,
  maxOf,
  meanSquaredError,
  psnrFromMse,
  sequenceAgreement,
  ssim,
  SSIM_WINDOW,
  type FloatArray,
} from '../metrics/index.ts';

/** The k of top-k agreement beside top-1. */
const TOP5 = 5;
import type { OutputSummary, SampleMetrics } from '../metrics/index.ts';

/** 'auto' computes the metric where the output's shape fits it. */
export type MetricSwitch = 'auto' | 'always' | 'never';

/**
 * The output metrics no search figure reads (the ladder's and the searches' figures: cosine, PSNR, top-1, sequence,
 * CER, task figures): a search's judge leaves them out, since SSIM on a large map costs seconds a sample.
 */
export const UNREAD_BY_FIGURES = { ssim: 'never' } as const;

export interface OutputMetricOptions {
  /** SSIM (Quark's variant, data range 255). Default 'auto': rank-4 outputs with H and W ≥ 11. */
  readonly ssim?: MetricSwitch;
  /** Top-1 / top-5 agreement. Default 'auto': rank 1 or 2 outputs with at least 2 classes (top-5 only with more than 5). */
  readonly agreement?: MetricSwitch;
  /** Step top-1, sequence match and CER. Default 'auto': rank-3 outputs whose rows are probability distributions; 'always': every rank-3 output (logits too). */
  readonly sequence?: MetricSwitch;
  /**
   * L2 distance, MSE and PSNR (with the reference's peak). Default 'auto': always; 'never' for a judge that reads the
   * cosine alone (the held-in choice: on ISNet's three 1024² maps a float16 output's four passes cost about 1.2 s).
   */
  readonly errors?: MetricSwitch;
  /** The decision threshold of a single-probability output (decision agreement). Default 0.5. */
  readonly threshold?: number;
}

/** The default decision threshold of a single-probability output. */
export const DECISION_THRESHOLD = 0.5;

/** Whether an output of `dims` holds one number a sample (every dimension 1, or a scalar). */
export function isSingleValue(dims: readonly number[]): boolean {
  return dims.every((d) => d === 1);
}

/** Whether an output of `dims` is an image SSIM can slide its window over. */
export function isImageLike(dims: readonly number[]): boolean {
  return dims.length === 4 && dims[2] >= SSIM_WINDOW && dims[3] >= SSIM_WINDOW;
}

/** Whether an output of `dims` looks like class scores. */
export function isClassifierLike(dims: readonly number[]): boolean {
  return (dims.length === 1 || dims.length === 2) && dims[dims.length - 1] >= 2;
}

/**
 * Whether an output of `dims` with float values `reference` is a sequence of class probabilities:
 * [batch, steps, classes], at least 2 steps and 3 classes, every row non-negative and summing to 1
 * (within 1e-3).
 */
export function isSequenceLike(dims: readonly number[], reference: FloatArray): boolean {
  if (dims.length !== 3 || dims[1] < 2 || dims[2] < 3) return false;
  const classes = dims[2];
  for (let start = 0; start < reference.length; start += classes) {
    let sum = 0;
    for (let c = 0; c < classes; c++) {
      const v = reference[start + c];
      if (!(v >= 0)) return false;
      sum += v;
    }
    if (Math.abs(sum - 1) > 1e-3) return false;
  }
  return reference.length > 0;
}

const wanted = (s: MetricSwitch | undefined, auto: boolean) =>
  (s ?? 'auto') === 'always' || ((s ?? 'auto') === 'auto' && auto);

/** One sample's metrics of one output: float `reference` against quantized `test`, shaped `dims`. */
export function outputMetrics(
  reference: FloatArray,
  test: FloatArray,
  dims: readonly number[],
  options: OutputMetricOptions = {},
): SampleMetrics {
  if (isSingleValue(dims) && reference.length === 1 && test.length === 1) {
    const r = reference[0];
    const q = test[0];
    const t = options.threshold ?? DECISION_THRESHOLD;
    const single: SampleMetrics = { absError: Math.abs(r - q) };
    if (r >= 0 && r <= 1) single.decision = r >= t === q >= t ? 1 : 0;
    return single;
  }
  const metrics: SampleMetrics = {
    // Quark's cosine is 0 / 0 where a side is all zeros; the defined reading is metrics/cosine.ts definedCosine's.
    cosine: definedCosine(reference, test),
  };
  if (wanted(options.errors, true)) {
    const mse = meanSquaredError(reference, test);
    const peak = maxOf(reference);
    metrics.l2 = l2Distance(reference, test);
    metrics.psnr = psnrFromMse(mse, peak);
    // The summary's mean PSNR is the set's, from these (metrics/metricSummary.ts PSNR_PARTS).
    metrics.mse = mse;
    metrics.peak = peak;
  }
  metrics[ZERO_OUTPUT] = zeroSide(reference, test) === 'test' ? 1 : 0;
  if (wanted(options.ssim, isImageLike(dims))) metrics.ssim = ssim(reference, test, dims);
  if (wanted(options.agreement, isClassifierLike(dims))) {
    const a = classifierAgreement(reference, test, dims);
    metrics.top1 = a.top1;
    // Top-5 of 5 classes or fewer always agrees: it says nothing, so it is not reported.
    if (dims[dims.length - 1] > TOP5) metrics.top5 = a.top5;
  }
  const sequence = options.sequence ?? 'auto';
  if ((sequence === 'always' && dims.length === 3) || (sequence === 'auto' && isSequenceLike(dims, reference))) {
    const s = sequenceAgreement(reference, test, dims);
    metrics.stepTop1 = s.stepTop1;
    metrics.sequence = s.sequence;
    metrics.cer = s.cer;
    // The summary's mean CER is the set's, pooled, from these (metrics/metricSummary.ts CER_PARTS).
    metrics.charErrors = s.charErrors;
    metrics.referenceChars = s.referenceChars;
  }
  return metrics;
}

/**
 * The single fidelity number of a comparison: the mean over outputs of each output's mean cosine
 * over samples. Outputs whose mean is undefined (an all-zero output makes Quark's cosine 0/0) are
 * left out and counted; NaN when no output has a defined cosine.
 */
export function meanOutputCosine(summaries: readonly OutputSummary[]): { cosine: number; undefinedOutputs: number } {
  let sum = 0;
  let count = 0;
  let undefinedOutputs = 0;
  for (const s of summaries) {
    const c = s.metrics.cosine?.mean;
    if (c === undefined) continue;
    if (Number.isFinite(c)) {
      sum += c;
      count++;
    } else undefinedOutputs++;
  }
  return { cosine: count ? sum / count : NaN, undefinedOutputs };
}
