/**
 * ModelProto → bytes. `encode` builds one buffer; `encodeParts` builds a list of buffers whose
 * concatenation is the same model, so a large model can be saved (new Blob(parts), or appended to a
 * file) without one giant allocation: protobuf merges repeated occurrences of an embedded message, so
 * the model without its initializers followed by fragments that hold only initializers is the model.
 */
import { ModelProtoType } from './protoRoot.ts';
import type { ModelProto, TensorProto } from './model.ts';

/** The serialized model. */
export function encode(model: ModelProto): Uint8Array {
  return ModelProtoType.encode(model as object).finish();
}

/** The serialized model as parts of roughly `partBytes` bytes each; their concatenation equals a valid encoding. */
export function encodeParts(model: ModelProto, partBytes = 64 * 1024 * 1024): Uint8Array[] {
  const graph = model.graph;
  if (!graph || graph.initializer.length === 0) return [encode(model)];
  const head = encode({ ...model, graph: { ...graph, initializer: [] } });
  const parts: Uint8Array[] = [head];
  let chunk: TensorProto[] = [];
  let size = 0;
  const flush = () => {
    if (chunk.length === 0) return;
    parts.push(ModelProtoType.encode({ graph: { initializer: chunk } }).finish());
    chunk = [];
    size = 0;
  };
  for (const t of graph.initializer) {
    chunk.push(t);
    size += t.raw_data?.byteLength ?? 0;
    if (size >= partBytes) flush();
  }
  flush();
  return parts;
}
