/**
 * ModelProto → bytes. `encode` builds one buffer; `encodeParts` builds a list of buffers whose
 * concatenation is the same model, so a large model can be saved (new Blob(parts), or appended to a
 * file) without one giant allocation. The graph stays one field of the model: its length is known before
 * any part is written (the graph without initializers, then the initializers in chunks, each chunk a
 * GraphProto fragment that holds only initializers, which protobuf concatenates into the one graph).
 * Writing the graph as several fields instead is valid protobuf (a reader merges them), but readers that
 * keep only the last occurrence of a message field (Netron 9.2.1) then see a graph with no nodes.
 */
import { GraphProtoType, ModelProtoType, protobuf } from './protoRoot.ts';
import type { ModelProto, TensorProto } from './model.ts';

/** ModelProto's `graph` field (7), length-delimited. */
const GRAPH_FIELD = 7;

/** The serialized model. */
export function encode(model: ModelProto): Uint8Array {
  return ModelProtoType.encode(model as object).finish();
}

/** The serialized model as parts of roughly `partBytes` bytes each; their concatenation equals a valid encoding. */
export function encodeParts(model: ModelProto, partBytes = 64 * 1024 * 1024): Uint8Array[] {
  const graph = model.graph;
  if (!graph || graph.initializer.length === 0) return [encode(model)];
  const fragments: Uint8Array[] = [GraphProtoType.encode({ ...graph, initializer: [] } as object).finish()];
  let chunk: TensorProto[] = [];
  let size = 0;
  const flush = () => {
    if (chunk.length === 0) return;
    fragments.push(GraphProtoType.encode({ initializer: chunk } as object).finish());
    chunk = [];
    size = 0;
  };
  for (const t of graph.initializer) {
    chunk.push(t);
    size += t.raw_data?.byteLength ?? 0;
    if (size >= partBytes) flush();
  }
  flush();
  const graphBytes = fragments.reduce((sum, f) => sum + f.byteLength, 0);
  // The model without its graph, then the graph field's key and length, then the graph's first fragment.
  const headBytes = ModelProtoType.encode({ ...model, graph: undefined } as object).finish();
  const key = protobuf.Writer.create()
    .uint32((GRAPH_FIELD << 3) | 2)
    .uint32(graphBytes)
    .finish();
  const first = new Uint8Array(headBytes.byteLength + key.byteLength + fragments[0].byteLength);
  first.set(headBytes, 0);
  first.set(key, headBytes.byteLength);
  first.set(fragments[0], headBytes.byteLength + key.byteLength);
  return [first, ...fragments.slice(1)];
}
