/**
 * Peak signal-to-noise ratio of a quantized model's output against the float model's output.
 *
 * PSNR puts the quantization error on a decibel scale relative to the signal's peak; Quark's
 * documentation reads above about 30 dB as low quantization noise. The definition is AMD Quark's
 * `calculate_psnr` (quark/onnx/tools/evaluate.py, the same function in
 * quark/onnx/quantization/output_eval.py):
 *
 *   mse  = mean((reference − test)²) over the whole tensor, flattened
 *   peak = max(reference)                       — the float output's own maximum, not 255 nor 1
 *   PSNR = 20·log10(peak) − 10·log10(mse)
 *
 * with two guards of Quark's: an mse of exactly 0 becomes 1e-10, and a peak ≤ 0 becomes 1e-10. So
 * identical outputs give a finite 20·log10(peak) + 100 dB, not Infinity (set `mseFloor: 0` for
 * Infinity). The argument order matters: the peak is read from the reference (float) output only.
 * Must not rescale the data or guess a data range.
 */

import { assertSameLength, MetricInputError, type FloatArray } from './input.ts';

/** Quark's replacement for an mse of exactly zero, and for a non-positive peak. */
export const PSNR_EPSILON = 1e-10;

export interface PsnrOptions {
  /**
   * Peak value, in the outputs' units. Default: the maximum of the reference output, replaced by
   * 1e-10 when that maximum is ≤ 0 (Quark). Give 255 or 1 to get the textbook image PSNR instead.
   */
  readonly peak?: number;
  /** What an mse of exactly 0 becomes. Default 1e-10 (Quark); 0 makes identical outputs +Infinity dB. */
  readonly mseFloor?: number;
}

/** Mean of the squared element differences, accumulated in float64; NaN for empty arrays. */
export function meanSquaredError(reference: FloatArray, test: FloatArray): number {
  assertSameLength(reference, test);
  let sum = 0;
  for (let i = 0; i < reference.length; i++) {
    const d = reference[i] - test[i];
    sum += d * d;
  }
  return sum / reference.length;
}

/** Largest element, NaN if any element is NaN (as numpy's max), -Infinity when empty. */
export function maxOf(values: FloatArray): number {
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isNaN(v)) return NaN;
    if (v > max) max = v;
  }
  return max;
}

/**
 * PSNR of `test` against `reference`, in decibels (higher is closer).
 *
 * NaN in either output gives NaN; empty outputs give NaN (numpy's mean of nothing). A test output
 * that is infinitely far off gives -Infinity.
 */
export function psnr(reference: FloatArray, test: FloatArray, options: PsnrOptions = {}): number {
  const mseFloor = options.mseFloor ?? PSNR_EPSILON;
  if (!(mseFloor >= 0)) throw new MetricInputError(`PSNR mseFloor must be ≥ 0, got ${mseFloor}.`);
  if (options.peak !== undefined && !(options.peak > 0 && Number.isFinite(options.peak))) {
    throw new MetricInputError(`PSNR peak must be a finite number > 0, got ${options.peak}.`);
  }

  return psnrFromMse(meanSquaredError(reference, test), options.peak ?? maxOf(reference), mseFloor);
}

/**
 * PSNR in dB of a mean squared error against a peak, with Quark's guards. Also the PSNR of a set of samples:
 * their mean MSE against the largest peak (evaluate's mean PSNR), not an average of their decibels.
 */
export function psnrFromMse(mse: number, peak: number, mseFloor = PSNR_EPSILON): number {
  // quark/onnx/tools/evaluate.py calculate_psnr: `if mse == 0: mse += 1e-10` — only an exact zero.
  const m = mse === 0 ? mseFloor : mse;
  // Same function: `if max <= 0: max = 1e-10` (a NaN peak fails the test and stays NaN).
  const p = peak <= 0 ? PSNR_EPSILON : peak;
  return 20 * Math.log10(p) - 10 * Math.log10(m);
}
