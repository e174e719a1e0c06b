/**
 * Top-1 and top-5 agreement between a float classifier's output and its quantized version's.
 *
 * Signal metrics (cosine, PSNR) can look fine while the predicted class flips; agreement asks the
 * question a classifier's user cares about, without a labelled dataset: treat the float model's
 * top-1 class as the label and score the quantized model as top-k accuracy would. Quark's evaluate
 * tool has no such metric; this follows the usual top-k accuracy definition. The last axis holds
 * the class scores (logits or probabilities, either works: ranking ignores softmax); every other
 * axis is a row. Must not apply softmax or thresholds.
 */

import { assertDims, assertSameLength, MetricInputError, type FloatArray } from './input.ts';

export interface Agreement {
  /** Rows compared: the product of every axis but the last. */
  readonly rows: number;
  /** Rows whose quantized top-1 class is the float top-1 class. */
  readonly top1Matches: number;
  /** Rows whose quantized top-5 classes contain the float top-1 class. */
  readonly top5Matches: number;
  /** top1Matches / rows, in [0, 1]; NaN when there are no rows. */
  readonly top1: number;
  /** top5Matches / rows, in [0, 1]; NaN when there are no rows. */
  readonly top5: number;
}

/**
 * Whether score `a` at index `i` ranks before score `b` at index `j`: higher first, NaN above every
 * number (numpy's argmax returns the first NaN), ties to the lower index (argmax's first maximum).
 */
function ranksBefore(a: number, i: number, b: number, j: number): boolean {
  const aNaN = Number.isNaN(a);
  const bNaN = Number.isNaN(b);
  if (aNaN !== bNaN) return aNaN;
  if (!aNaN && a !== b) return a > b;
  return i < j;
}

/** Index of the top-ranked class in `scores[start, start + classes)`, relative to `start`. */
export function argmax(scores: FloatArray, start = 0, classes = scores.length - start): number {
  let best = 0;
  for (let c = 1; c < classes; c++) {
    if (ranksBefore(scores[start + c], c, scores[start + best], best)) best = c;
  }
  return best;
}

/** Number of classes in a row that rank before class `label` (so `label` is in the top k iff < k). */
function rankOf(scores: FloatArray, start: number, classes: number, label: number): number {
  const v = scores[start + label];
  let rank = 0;
  for (let c = 0; c < classes; c++) {
    if (c !== label && ranksBefore(scores[start + c], c, v, label)) rank++;
  }
  return rank;
}

/**
 * Rows (of `dims`, classes on the last axis) whose test top-k classes contain the reference's top-1
 * class. k ≥ the number of classes always matches.
 */
export function topKMatches(reference: FloatArray, test: FloatArray, dims: readonly number[], k: number): number {
  assertSameLength(reference, test);
  assertDims(dims, reference.length);
  if (!Number.isInteger(k) || k < 1) throw new MetricInputError(`Top-k needs a whole k ≥ 1, got ${k}.`);
  if (dims.length === 0) throw new MetricInputError('Agreement needs a class axis; this output is a scalar.');
  const classes = dims[dims.length - 1];
  if (classes === 0) return 0;
  const rows = reference.length / classes;
  let matches = 0;
  for (let r = 0; r < rows; r++) {
    const start = r * classes;
    const label = argmax(reference, start, classes);
    if (rankOf(test, start, classes, label) < k) matches++;
  }
  return matches;
}

/** Top-1 and top-5 agreement of a classifier-like output of shape [classes] or [N, classes]. */
export function classifierAgreement(reference: FloatArray, test: FloatArray, dims: readonly number[]): Agreement {
  const top1Matches = topKMatches(reference, test, dims, 1);
  const top5Matches = topKMatches(reference, test, dims, 5);
  const classes = dims[dims.length - 1];
  const rows = classes === 0 ? 0 : reference.length / classes;
  return { rows, top1Matches, top5Matches, top1: top1Matches / rows, top5: top5Matches / rows };
}
