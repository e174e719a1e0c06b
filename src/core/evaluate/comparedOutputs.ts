/**
 * Which outputs of a model a float-vs-quantized comparison measures. Outputs of a float type are; outputs of
 * an integer, bool or string type (an ArgMax's int64 labels, a bool mask, a count) are not: they are what the
 * float outputs decide, have no cosine or PSNR, and the comparison used to stop with an error (evaluation) or
 * an uncaught TypeError (the mixed-precision search) on such a model. They are named as skipped instead; a
 * model with no float output at all cannot be compared (ComparisonError). One rule for every judge: the
 * comparison (evaluation, the ladder) and the search's quick judge.
 */
import { elementType, elementTypeName, type ModelProto } from '../onnx/index.ts';
import { ComparisonError } from './errors.ts';

export interface ComparedOutputs {
  /** The outputs compared, in the model's order. */
  readonly compared: readonly string[];
  /** The outputs left out, with their element type's name. */
  readonly skipped: readonly { readonly name: string; readonly type: string }[];
}

/** The model's outputs split into compared (float or of unstated type) and skipped (integer, bool, string). */
export function comparedOutputs(model: ModelProto): ComparedOutputs {
  const compared: string[] = [];
  const skipped: { name: string; type: string }[] = [];
  for (const o of model.graph!.output) {
    const type = o.type?.tensor_type?.elem_type;
    const info = type ? elementType(type) : undefined;
    if (info && !info.isFloat) skipped.push({ name: o.name ?? '', type: elementTypeName(type) });
    else compared.push(o.name ?? '');
  }
  if (compared.length === 0) {
    throw new ComparisonError(
      `the model has no float output to compare (${skipped.map((s) => `"${s.name}" is ${s.type}`).join(', ')}): cosine, PSNR and the other metrics compare float outputs`,
    );
  }
  return { compared, skipped };
}
