/**
 * The two models of a comparison: the open model's weight-less structure from the model worker, a quantization
 * result's or a dropped file's graph decoded here. A file that is not a model fails with the core's named errors (NotOnnxError, …).
 */
import { decode } from '../../../core/onnx/decode.ts';
import { StudioError } from '../../../core/onnx/errors.ts';
import type { GraphProto } from '../../../core/onnx/model.ts';

/** Files above this size are refused for comparison on the page (its memory holds both files at once). */
export const COMPARE_MAX_BYTES = 1024 * 1024 * 1024;

/** Not two .onnx files, or one too large to compare. */
export class CompareInputError extends StudioError {
  override readonly name = 'CompareInputError';
}

/**
 * The graph of a model file, decoded here. Only decoded (no summary, no index: the view builds its own), and not
 * copied weight-less: the copy costs more than it saves while the comparison is open (tensors stay views into the
 * file's bytes, released with the comparison).
 */
export async function structureOfBlob(blob: Blob, fileName: string): Promise<GraphProto> {
  if (blob.size > COMPARE_MAX_BYTES) throw new CompareInputError(`${fileName} is ${Math.round(blob.size / 2 ** 20)} MiB: comparing on the page takes files up to 1 GiB`);
  const graph = decode(new Uint8Array(await blob.arrayBuffer()), { fileName }).graph;
  if (!graph) throw new CompareInputError(`${fileName} holds no graph to compare`);
  return graph;
}

/** Checks a drop or pick for comparison: exactly two .onnx files. */
export function twoModels(files: readonly File[]): [File, File] {
  const models = files.filter((f) => /\.onnx$/i.test(f.name));
  if (models.length !== 2) {
    throw new CompareInputError(`Comparing takes two .onnx files; ${models.length === 0 ? 'none was' : models.length === 1 ? `only ${models[0].name} was` : `${models.length} were`} given`);
  }
  return [models[0], models[1]];
}
