/**
 * Decode, index and summarize in one step: what the page's model worker and `qstudio inspect` do
 * when a user gives them a file.
 */
import { decode, type DecodeOptions } from './decode.ts';
import { buildGraphIndex, type GraphIndex } from './graphIndex.ts';
import type { ModelProto } from './model.ts';
import { summarize, type ModelSummary } from './modelSummary.ts';

export interface OpenedModel {
  model: ModelProto;
  index: GraphIndex;
  summary: ModelSummary;
}

/** Opens a model from its bytes; throws the named errors of decode and buildGraphIndex. */
export function openModel(bytes: Uint8Array, options: DecodeOptions = {}): OpenedModel {
  const model = decode(bytes, options);
  const index = buildGraphIndex(model.graph!);
  const summary = summarize(model, index, { name: options.fileName, byteLength: bytes.byteLength });
  return { model, index, summary };
}
