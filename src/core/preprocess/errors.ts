/**
 * Named errors of turning images and .npy files into model inputs.
 *
 * They follow `src/core/onnx/errors.ts`: the meaning is in `name`, which survives a worker boundary,
 * and the message says which field, file or dimension is wrong and what would be right. A message
 * is shown to the user as is (the CLI prints it; the page puts it beside the preprocessing form).
 */
import { StudioError } from '../onnx/errors.ts';

/** A preprocessing spec is malformed, or does not fit the model input it is applied to. */
export class PreprocessError extends StudioError {
  override readonly name = 'PreprocessError';
}

/** The bytes are not a NumPy .npy file (bad magic, unreadable header, too few data bytes). */
export class NpyFormatError extends StudioError {
  override readonly name = 'NpyFormatError';
}

/** The .npy file holds a dtype this project does not read (structured, complex, strings, objects, …). */
export class NpyDtypeError extends StudioError {
  override readonly name = 'NpyDtypeError';
}

/** The .npy file is stored in Fortran (column-major) order; only C order is read. */
export class NpyFortranOrderError extends StudioError {
  override readonly name = 'NpyFortranOrderError';
}

/** A .npy array does not fit the model input it is meant for (shape or element type). */
export class NpyInputMismatchError extends StudioError {
  override readonly name = 'NpyInputMismatchError';
}

/** A float array holding NaN or ±Infinity: no range can be read from it, nor a model judged on it. */
export class NpyNonFiniteError extends StudioError {
  override readonly name = 'NpyNonFiniteError';
}
