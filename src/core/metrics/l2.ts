/**
 * L2 distance between a float model's output and a quantized model's output.
 *
 * The plain Euclidean norm of the difference, as AMD Quark's `calculate_l2_distance`
 * (quark/onnx/quantization/output_eval.py, formerly quark/onnx/quant_utils.py; used by
 * quark/onnx/tools/evaluate.py) computes it with `np.linalg.norm(x - y)`: the whole tensor
 * flattened, sqrt(Σ (aᵢ − bᵢ)²), neither divided by the element count nor by the reference's norm.
 * Its size therefore grows with the output's scale and size and says little across models; use it
 * to compare two quantizations of the same model. Must not normalise: that would be another metric.
 */

import { assertSameLength, type FloatArray } from './input.ts';

/**
 * Euclidean distance between the two outputs, flattened, in the outputs' own units (≥ 0).
 *
 * Identical inputs give 0, as do two empty arrays; any NaN gives NaN; an infinite difference gives
 * Infinity (Infinity − Infinity is NaN, as in numpy). Accumulates in float64.
 */
export function l2Distance(reference: FloatArray, test: FloatArray): number {
  assertSameLength(reference, test);
  let sum = 0;
  for (let i = 0; i < reference.length; i++) {
    const d = reference[i] - test[i];
    sum += d * d;
  }
  return Math.sqrt(sum);
}
