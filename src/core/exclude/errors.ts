/** The named error of exclusions: a selector that names nothing, or a subgraph that does not connect. */
import { StudioError } from '../onnx/errors.ts';

export class ExclusionError extends StudioError {
  override readonly name = 'ExclusionError';
}
