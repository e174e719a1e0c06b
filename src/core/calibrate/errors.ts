/**
 * Named errors of calibration, as the page receives them through comlink (name, message and stack
 * survive; docs/ARCHITECTURE.md, principle 9). Expected outcomes that are not failures, such as a corrupt image
 * among good ones, are data in the result instead (`skipped`). One declaration each, for the page's workers and
 * the command line alike.
 */
import { StudioError } from '../onnx/errors.ts';

/** No images or tensors were given, and random data was not asked for. */
export class NoCalibrationDataError extends StudioError {
  override readonly name = 'NoCalibrationDataError';
}

/** Samples were given but none of them could be read (every image corrupt, …). */
export class NoUsableSamplesError extends StudioError {
  override readonly name = 'NoUsableSamplesError';
}

/** The model uses ops of domains onnxruntime cannot run without a custom-op library. */
export class CustomOpsError extends StudioError {
  override readonly name = 'CustomOpsError';
}

/** Images were given for a model whose inputs are not one image (several inputs, or not rank 3/4). */
export class NotAnImageModelError extends StudioError {
  override readonly name = 'NotAnImageModelError';
}

/** The user cancelled the run. */
export class CalibrationCancelledError extends StudioError {
  override readonly name = 'CalibrationCancelledError';
}

/** onnxruntime refused the model or failed on a run: not the fault of one sample. */
export class InferenceError extends StudioError {
  override readonly name = 'InferenceError';
}
