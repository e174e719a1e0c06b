/**
 * The two models of a comparison as the page picks them: exactly two .onnx files (or the open model and its
 * quantization), each within the size the page compares. Reading them is the comparison worker's
 * (workers/compare/compareApi.ts); a file that is not a model fails there with the core's named errors (NotOnnxError, …).
 */
import { CompareInputError } from '../../../core/graph/comparison.ts';

export { CompareInputError };

/** Files above this size are refused for comparison on the page (the worker holds both files at once). */
export const COMPARE_MAX_BYTES = 1024 * 1024 * 1024;

/** Refuses a file too large to compare, by name. */
export function checkCompareSize(blob: Blob, fileName: string): void {
  if (blob.size > COMPARE_MAX_BYTES)
    throw new CompareInputError(
      `${fileName} is ${Math.round(blob.size / 2 ** 20)} MiB: comparing on the page takes files up to 1 GiB`,
    );
}

/** Checks a drop or pick for comparison: exactly two .onnx files. */
export function twoModels(files: readonly File[]): [File, File] {
  const models = files.filter((f) => /\.onnx$/i.test(f.name));
  if (models.length !== 2) {
    throw new CompareInputError(
      `Comparing takes two .onnx files; ${models.length === 0 ? 'none was' : models.length === 1 ? `only ${models[0].name} was` : `${models.length} were`} given`,
    );
  }
  return [models[0], models[1]];
}
