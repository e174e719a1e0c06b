/**
 * Agreement of sequence outputs: a float model's and its quantized model's scores shaped
 * [batch, steps, classes], as a CTC text recognizer (PP-OCR, CRNN) emits them.
 *
 * Cosine and PSNR over such an output say little about what its user reads: the text. Three numbers
 * that do, with the float model's output as the label (no labelled dataset needed):
 * - step top-1: the share of (sequence, step) rows whose quantized top-1 class is the float top-1;
 * - sequence match: the share of sequences whose greedy CTC decodings are identical;
 * - CER: the character error rate of the quantized decoding against the float decoding, the edit
 *   (Levenshtein) distance over the float decoding's length, pooled over the sequences.
 * Greedy CTC decoding (Graves et al. 2006, best path): the top-1 class at every step, repeats
 * collapsed, then the blank dropped; the blank is class 0 (PaddleOCR's and CRNN's convention) unless
 * told otherwise. Must not apply softmax (argmax ignores it) or know any dictionary.
 */
import { editDistance } from '../editDistance.ts';
import { argmax } from './agreement.ts';
import { assertDims, assertSameLength, MetricInputError, type FloatArray } from './input.ts';

export interface SequenceAgreement {
  /** Sequences compared: the product of every axis but the last two. */
  readonly sequences: number;
  /** (sequence, step) rows compared. */
  readonly steps: number;
  /** Rows whose quantized top-1 class is the float top-1 class. */
  readonly stepMatches: number;
  /** Sequences whose greedy CTC decodings are identical. */
  readonly sequenceMatches: number;
  /** Sum over sequences of the edit distance between the decodings. */
  readonly charErrors: number;
  /** Sum over sequences of the float decoding's length. */
  readonly referenceChars: number;
  /** stepMatches / steps, in [0, 1]; NaN without rows. */
  readonly stepTop1: number;
  /** sequenceMatches / sequences, in [0, 1]; NaN without sequences. */
  readonly sequence: number;
  /** charErrors / referenceChars (may exceed 1); 0 when both are 0; 1 per error when the float decodings are all empty. */
  readonly cer: number;
}

/** Greedy CTC decoding of one sequence, `steps` rows of `classes` scores from `start`: labels, repeats collapsed, blank dropped. */
export function ctcGreedyDecode(
  scores: FloatArray,
  start: number,
  steps: number,
  classes: number,
  blank = 0,
): number[] {
  const labels: number[] = [];
  let previous = -1;
  for (let t = 0; t < steps; t++) {
    const c = argmax(scores, start + t * classes, classes);
    if (c !== previous && c !== blank) labels.push(c);
    previous = c;
  }
  return labels;
}

/** The character error rate of pooled counts: errors over reference characters (0 when both are 0, errors when there are no reference characters). */
export function characterErrorRate(charErrors: number, referenceChars: number): number {
  return referenceChars > 0 ? charErrors / referenceChars : charErrors;
}

/** Step top-1, sequence match and CER of a [..., steps, classes] output against the float model's. */
export function sequenceAgreement(
  reference: FloatArray,
  test: FloatArray,
  dims: readonly number[],
  blank = 0,
): SequenceAgreement {
  assertSameLength(reference, test);
  assertDims(dims, reference.length);
  if (dims.length < 2)
    throw new MetricInputError(
      `Sequence agreement needs [steps, classes] on the last two axes; the output is [${dims.join(', ')}].`,
    );
  const classes = dims[dims.length - 1];
  const stepsPerSequence = dims[dims.length - 2];
  if (!Number.isInteger(blank) || blank < 0 || blank >= Math.max(classes, 1))
    throw new MetricInputError(`The CTC blank ${blank} is not one of the ${classes} classes.`);
  const sequences = classes * stepsPerSequence === 0 ? 0 : reference.length / (classes * stepsPerSequence);
  let stepMatches = 0;
  let sequenceMatches = 0;
  let charErrors = 0;
  let referenceChars = 0;
  for (let s = 0; s < sequences; s++) {
    const start = s * stepsPerSequence * classes;
    for (let t = 0; t < stepsPerSequence; t++) {
      const row = start + t * classes;
      if (argmax(reference, row, classes) === argmax(test, row, classes)) stepMatches++;
    }
    const a = ctcGreedyDecode(reference, start, stepsPerSequence, classes, blank);
    const b = ctcGreedyDecode(test, start, stepsPerSequence, classes, blank);
    const d = editDistance(a, b);
    if (d === 0) sequenceMatches++;
    charErrors += d;
    referenceChars += a.length;
  }
  const steps = sequences * stepsPerSequence;
  return {
    sequences,
    steps,
    stepMatches,
    sequenceMatches,
    charErrors,
    referenceChars,
    stepTop1: stepMatches / steps,
    sequence: sequenceMatches / sequences,
    cer: characterErrorRate(charErrors, referenceChars),
  };
}
