/**
 * Argument checks shared by the comparison metrics, and the one error they raise.
 *
 * Every metric compares a float model's output with a quantized model's output element by element,
 * so the two must have the same length (and, where a layout matters, the same dims). Quark's tool
 * leans on numpy, which would broadcast or fail deep inside; here a mismatch is a named error up
 * front, so the worker boundary can carry its meaning. Values themselves are never checked: NaN and
 * Infinity are data, and each metric says what it makes of them.
 */
import { StudioError } from '../onnx/errors.ts';

/** The element arrays the metrics read. Float32Array is what onnxruntime hands back. */
export type FloatArray = Float32Array | Float64Array;

/** The two outputs cannot be compared as given (lengths differ, dims do not match the data, …). */
export class MetricInputError extends StudioError {
  override readonly name = 'MetricInputError';
}

/** Throws unless the reference (float) and test (quantized) outputs have the same number of elements. */
export function assertSameLength(reference: ArrayLike<number>, test: ArrayLike<number>): void {
  if (reference.length !== test.length) {
    throw new MetricInputError(
      `Cannot compare outputs of different sizes: the float output has ${reference.length} elements, ` +
        `the quantized output ${test.length}. Compare the same output of both models.`,
    );
  }
}

/** Number of elements a shape describes; throws on a negative or fractional dimension. */
export function elementCount(dims: readonly number[]): number {
  let count = 1;
  for (const d of dims) {
    if (!Number.isInteger(d) || d < 0) {
      throw new MetricInputError(`Shape [${dims.join(', ')}] has a dimension that is not a whole number ≥ 0.`);
    }
    count *= d;
  }
  return count;
}

/** Throws unless `dims` describes exactly `length` elements. */
export function assertDims(dims: readonly number[], length: number): void {
  const count = elementCount(dims);
  if (count !== length) {
    throw new MetricInputError(`Shape [${dims.join(', ')}] describes ${count} elements but the output has ${length}.`);
  }
}
