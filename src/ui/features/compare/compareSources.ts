/**
 * The two models of a comparison, as weight-less structures decoded on the page (the graph needs no weights but
 * the Q/DQ scales, which the structure keeps): the open model's from the model worker, a quantization result's or a
 * dropped file's decoded here. A file that is not a model fails with the core's named errors (NotOnnxError, …).
 */
import { weightlessGraph } from '../../../core/graph/structure.ts';
import { openModel } from '../../../core/onnx/openModel.ts';
import { StudioError } from '../../../core/onnx/errors.ts';
import type { GraphProto } from '../../../core/onnx/model.ts';

/** Files above this size are refused for comparison on the page (its memory holds both files at once). */
export const COMPARE_MAX_BYTES = 1024 * 1024 * 1024;

/** Not two .onnx files, or one too large to compare. */
export class CompareInputError extends StudioError {
  override readonly name = 'CompareInputError';
}

export async function structureOfBlob(blob: Blob, fileName: string): Promise<GraphProto> {
  if (blob.size > COMPARE_MAX_BYTES) throw new CompareInputError(`${fileName} is ${Math.round(blob.size / 2 ** 20)} MiB: comparing on the page takes files up to 1 GiB`);
  const { model } = openModel(new Uint8Array(await blob.arrayBuffer()), { fileName });
  return weightlessGraph(model.graph!);
}

/** Checks a drop or pick for comparison: exactly two .onnx files. */
export function twoModels(files: readonly File[]): [File, File] {
  const models = files.filter((f) => /\.onnx$/i.test(f.name));
  if (models.length !== 2) {
    throw new CompareInputError(`Comparing takes two .onnx files; ${models.length === 0 ? 'none was' : models.length === 1 ? `only ${models[0].name} was` : `${models.length} were`} given`);
  }
  return [models[0], models[1]];
}
