/**
 * Named errors of model input and output.
 *
 * Errors cross worker boundaries (comlink keeps only name, message and stack), so the meaning is in
 * `name`: the UI and the CLI branch on it and show the message as is. Every message says what the
 * file is, what is wrong, and what the user can do.
 */

/** Every error this project raises on purpose carries a stable name of this kind. */
export abstract class StudioError extends Error {
  abstract override readonly name: string;
}

/** The file has no bytes. */
export class EmptyFileError extends StudioError {
  override readonly name = 'EmptyFileError';
}

/** The bytes are not an ONNX model (an image renamed .onnx, a text file, …). */
export class NotOnnxError extends StudioError {
  override readonly name = 'NotOnnxError';
}

/** The bytes start like an ONNX model but end early: an interrupted download or copy. */
export class TruncatedModelError extends StudioError {
  override readonly name = 'TruncatedModelError';
}

/** The file parses as protobuf but breaks ONNX's rules (a tensor whose data does not match its shape, …). */
export class InvalidModelError extends StudioError {
  override readonly name = 'InvalidModelError';
}

/** A tensor's data lives in an external file that was not given or is too short. */
export class ExternalDataError extends StudioError {
  override readonly name = 'ExternalDataError';
}

/** The model uses a feature this step cannot handle (a custom-domain op, float16 weights, …). */
export class UnsupportedModelError extends StudioError {
  override readonly name = 'UnsupportedModelError';
}

/**
 * A model the studio wrote that onnxruntime refuses to load (at its default options or at 'basic'): reported
 * instead of success, with onnxruntime's reason; the file is kept for inspection.
 */
export class WrittenModelRefusedError extends StudioError {
  override readonly name = 'WrittenModelRefusedError';
}

/**
 * Names of the errors opening a model can raise (the classes above), for code that receives an error
 * through a worker and only has its name. Other layers name their own errors (ConfigError,
 * ExclusionError, PreprocessError, …); every one of them extends StudioError.
 */
export const STUDIO_ERROR_NAMES = [
  'EmptyFileError',
  'NotOnnxError',
  'TruncatedModelError',
  'InvalidModelError',
  'ExternalDataError',
  'UnsupportedModelError',
] as const;
