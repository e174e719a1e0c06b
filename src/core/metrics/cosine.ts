/**
 * Cosine similarity between a float model's output and a quantized model's output.
 *
 * It measures whether the two outputs point the same way, whatever their scale, which makes it the
 * first number to look at after quantization (AMD Quark reads it as good above about 0.98). The
 * definition is Quark's `calculate_cos` (quark/onnx/quantization/output_eval.py; older releases
 * keep it in quark/onnx/quant_utils.py, whence quark/onnx/tools/evaluate.py imports it): both
 * tensors flattened whole, batch dimension included, then dot(a, b) / (‖a‖ · ‖b‖), with no epsilon
 * and no clamping. Must not reshape, normalise or skip values: one number per sample tensor.
 *
 * That definition is undefined (0 / 0) when either side is all zeros, as a detector's probability map quantized to
 * exactly zero is. `definedCosine` is what reports and choices use: Quark's value where it is defined, and where it
 * is not, the reading Quark's documentation gives the figure ("1.0 = identical direction"): two all-zero outputs are
 * identical (1), an all-zero output against a non-zero one keeps none of it (0, the worst a non-negative output
 * can score). NaN elements still give NaN.
 */

import { assertSameLength, type FloatArray } from './input.ts';

/**
 * Cosine of the angle between the two outputs, flattened: in [-1, 1] (unitless).
 *
 * Edge cases follow numpy's arithmetic in Quark's `calculate_cos`: a zero vector on either side
 * (and so also two empty arrays) gives 0 / 0 = NaN; any NaN element gives NaN. Accumulates in
 * float64 where Quark uses float32, so very large outputs do not overflow to inf / inf = NaN.
 */
export function cosineSimilarity(reference: FloatArray, test: FloatArray): number {
  assertSameLength(reference, test);
  let dot = 0;
  let refSq = 0;
  let testSq = 0;
  for (let i = 0; i < reference.length; i++) {
    const a = reference[i];
    const b = test[i];
    dot += a * b;
    refSq += a * a;
    testSq += b * b;
  }
  // One square root of the product rounds once, so cos(x, x) is exactly 1 (sqrt(fl(s·s)) = s in
  // IEEE arithmetic). Float32 data cannot overflow the product; float64 data might, so fall back.
  const product = refSq * testSq;
  const denominator =
    Number.isFinite(product) && (product > 0 || refSq === 0 || testSq === 0)
      ? Math.sqrt(product)
      : Math.sqrt(refSq) * Math.sqrt(testSq);
  return dot / denominator;
}

/** Which side of a comparison is all zeros (both sums of squares 0 is 'both'); null when neither is. */
export function zeroSide(reference: FloatArray, test: FloatArray): 'reference' | 'test' | 'both' | null {
  let refZero = true;
  let testZero = true;
  for (let i = 0; i < reference.length && (refZero || testZero); i++) {
    if (reference[i] !== 0) refZero = false;
    if (test[i] !== 0) testZero = false;
  }
  return refZero && testZero ? 'both' : refZero ? 'reference' : testZero ? 'test' : null;
}

/**
 * Quark's cosine where it is defined; where one side is all zeros: 1 when both are (identical outputs), 0 when only
 * one is (nothing of the other kept). See the module header.
 */
export function definedCosine(reference: FloatArray, test: FloatArray): number {
  assertSameLength(reference, test);
  const zero = zeroSide(reference, test);
  if (zero === 'both') return 1;
  if (zero !== null) return 0;
  return cosineSimilarity(reference, test);
}
