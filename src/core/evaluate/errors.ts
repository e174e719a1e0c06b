/**
 * Named errors of evaluation that both sides of the worker boundary raise: the evaluation worker when a
 * run has no data or is cancelled, the page when it ends a worker that did not stop in time. Declared
 * once, here, so the store meets one name whichever side threw (comlink keeps name, message and stack;
 * docs/ARCHITECTURE.md, principle 9). A corrupt image among good ones is not an error: it is listed in the result's
 * `skipped`; models that cannot be compared are compareModels' ComparisonError.
 */
import { StudioError } from '../onnx/errors.ts';

/** No images or tensors were given to evaluate on. */
export class NoEvaluationDataError extends StudioError {
  override readonly name = 'NoEvaluationDataError';
}

/** The user cancelled the evaluation or the search. */
export class EvaluationCancelledError extends StudioError {
  override readonly name = 'EvaluationCancelledError';
}

/** A comparison that cannot be made: the models' outputs differ, or the model has no float output. */
export class ComparisonError extends StudioError {
  override readonly name = 'ComparisonError';
}
