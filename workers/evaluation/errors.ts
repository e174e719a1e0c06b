/**
 * Named errors of evaluation, as the page receives them through comlink (name, message and stack
 * survive; ARCHITECTURE, example 9). A corrupt image among good ones is not an error: it is listed in
 * the result's `skipped`. A quantized model whose outputs or inputs do not match the float model is
 * the core's ComparisonError.
 */

/** No images or tensors were given to evaluate on. */
export class NoEvaluationDataError extends Error {
  override readonly name = 'NoEvaluationDataError';
}

/** The user cancelled the evaluation or the search. */
export class EvaluationCancelledError extends Error {
  override readonly name = 'EvaluationCancelledError';
}
