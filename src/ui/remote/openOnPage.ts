/**
 * A model opened on the page itself for its first picture, while the model worker opens it too, to keep it.
 *
 * On a first drop of a small model the worker's round trip (the bytes over, the summary and structure back)
 * was the largest part of the wait that could go (11–14 ms of MNIST's ~100 ms on 2 cores, measured with a
 * Chromium trace), and decoding a small model takes about a millisecond here. The page runs the very code the
 * worker runs (core/onnx/openModel.ts with the schema decoder, which compiles nothing and so passes the page's
 * content security policy, and core/graph/structure.ts), so the summary and the structure are the worker's
 * (workers/model/modelApi.test.ts pins them equal on every fixture), and a bad file fails here with the error the
 * worker would give. The decoded model is dropped at once: the page keeps only the summary and the weight-less
 * structure, which hold no view of the file's buffer, so the buffer can then be transferred to the worker.
 *
 * Large files and models with external data files are left to the worker (null): their decode would hold up the
 * page, and the data files are read in the worker.
 */
import { weightlessGraph } from '../../core/graph/structure.ts';
import type { GraphProto } from '../../core/onnx/model.ts';
import { openModel } from '../../core/onnx/openModel.ts';
import type { ModelSummary } from '../../core/onnx/modelSummary.ts';

/** Files up to this size are opened on the page first. */
export const PAGE_OPEN_BYTES = 8 * 1024 * 1024;

export interface OpenedOnPage {
  summary: ModelSummary;
  structure: GraphProto;
}

/**
 * The summary and the weight-less structure of a model, opened here; null when the worker should open it alone.
 * Throws the core's named errors (NotOnnxError, TruncatedModelError, …) for a file that is not a usable model.
 */
export function openOnPage(
  bytes: ArrayBuffer,
  fileName: string,
  externalFiles: Readonly<Record<string, Blob>>,
): OpenedOnPage | null {
  if (bytes.byteLength > PAGE_OPEN_BYTES || Object.keys(externalFiles).length > 0) return null;
  const { model, summary } = openModel(new Uint8Array(bytes), { fileName });
  return { summary, structure: weightlessGraph(model.graph!) };
}
