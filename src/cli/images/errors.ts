/**
 * Named errors of reading image files in Node.
 *
 * Calibration skips a file that fails with `ImageDecodeError` and names it in its report, so one
 * corrupt photo in a folder of hundreds does not stop a run; a folder that cannot be listed is a
 * different matter (`DataFolderError`, whether it holds images or .npy tensors), and stops it.
 */
import { StudioError } from '../../core/onnx/errors.ts';

/** A file cannot be read as an image: unreadable, not a JPEG or PNG, corrupt, or unsupported. Names the file. */
export class ImageDecodeError extends StudioError {
  override readonly name = 'ImageDecodeError';
}

/** A folder of samples (images or .npy/.npz tensors) cannot be listed (missing, not a folder, no permission). Names the folder. */
export class DataFolderError extends StudioError {
  override readonly name = 'DataFolderError';
}

/** Images that cannot feed a model: it has more than one input, or none of the images could be read. */
export class EvaluationDataError extends StudioError {
  override readonly name = 'EvaluationDataError';
}
