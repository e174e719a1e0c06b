/**
 * Named errors of task evaluation: a head the studio cannot decode (the user is asked to choose one),
 * outputs that do not fit the head chosen, and labels that cannot be trusted (naming no image, a class
 * out of range, a box outside its image). Each refuses instead of giving a wrong number.
 */
import { StudioError } from '../onnx/errors.ts';

/** The model's outputs are no head the studio decodes, or not the head the user chose. */
export class TaskHeadError extends StudioError {
  override readonly name = 'TaskHeadError';
}

/** A labels file or folder that cannot be read, or says something impossible about the images. */
export class TaskLabelError extends StudioError {
  override readonly name = 'TaskLabelError';
}
