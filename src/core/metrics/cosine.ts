/**
 * Cosine similarity between a float model's output and a quantized model's output.
 *
 * It measures whether the two outputs point the same way, whatever their scale, which makes it the
 * first number to look at after quantization (AMD Quark reads it as good above about 0.98). The
 * definition is Quark's `calculate_cos` (quark/onnx/quantization/output_eval.py; older releases
 * keep it in quark/onnx/quant_utils.py, whence quark/onnx/tools/evaluate.py imports it): both
 * tensors flattened whole, batch dimension included, then dot(a, b) / (‖a‖ · ‖b‖), with no epsilon
 * and no clamping. Must not reshape, normalise or skip values: one number per sample tensor.
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
