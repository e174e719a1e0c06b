/**
 * ModelProto → bytes. `encode` builds one buffer; `encodeParts` builds a list of buffers whose
 * concatenation is the same model, so a large model can be saved (new Blob(parts), or appended to a
 * file) without one giant allocation. The graph stays one field of the model: its length is known before
 * any part is written (the graph without initializers, then the initializers in chunks, each chunk a
 * GraphProto fragment that holds only initializers, which protobuf concatenates into the one graph).
 * Writing the graph as several fields instead is valid protobuf (a reader merges them), but readers that
 * keep only the last occurrence of a message field (Netron 9.2.1) then see a graph with no nodes.
 *
 * `encode` gives protobufjs's bytes exactly, but lays each large initializer's raw data into the result once:
 * protobufjs copies a nested message's bytes again at every level that closes it (a tensor, then the graph) and
 * grows its buffer by doubling, about five copies of the weights and their page faults (ISNet's 176 MB float32
 * form, encoded for each calibration session: bench/README.md, "Calibration of a large input").
 */
import { GraphProtoType, ModelProtoType, protobuf, TensorProtoType } from './protoRoot.ts';
import type { ModelProto, TensorProto } from './model.ts';

/** ModelProto's `graph` field (7), length-delimited. */
const GRAPH_FIELD = 7;

/** Raw data at least this long is laid into `encode`'s result directly; smaller tensors go through protobufjs whole. */
const LARGE_RAW_BYTES = 64 * 1024;

/** The serialized model: protobufjs's encoding, byte for byte. */
export function encode(model: ModelProto): Uint8Array {
  const graph = model.graph;
  if (!graph || !graph.initializer.some(isLarge)) return ModelProtoType.encode(model as object).finish();
  return concatenated([
    ...fieldsEncoded(ModelProtoType, model, (id) => id < GRAPH_FIELD),
    ...lengthDelimited(GRAPH_FIELD, graphParts(graph)),
    ...fieldsEncoded(ModelProtoType, model, (id) => id > GRAPH_FIELD),
  ]);
}

function concatenated(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

type MessageType = typeof ModelProtoType;

const INITIALIZER_FIELD = GraphProtoType.fields.initializer.id;
const RAW_DATA_FIELD = TensorProtoType.fields.raw_data.id;

function isLarge(t: TensorProto): boolean {
  return t.raw_data instanceof Uint8Array && t.raw_data.byteLength >= LARGE_RAW_BYTES;
}

/**
 * The message's fields whose numbers `keep` takes, encoded as protobufjs encodes the whole message (it writes the
 * fields in number order, an optional one where the object has it as its own property): the parts of a message
 * split at a field number concatenate to its encoding.
 */
function fieldsEncoded(type: MessageType, message: object, keep: (id: number) => boolean): Uint8Array[] {
  const subset: Record<string, unknown> = {};
  for (const f of type.fieldsArray)
    if (keep(f.id) && Object.prototype.hasOwnProperty.call(message, f.name))
      subset[f.name] = (message as Record<string, unknown>)[f.name];
  const bytes = type.encode(subset).finish();
  return bytes.byteLength > 0 ? [bytes] : [];
}

/** A length-delimited field's key and length, then its bytes (in parts). */
function lengthDelimited(field: number, parts: readonly Uint8Array[]): Uint8Array[] {
  const length = parts.reduce((n, p) => n + p.byteLength, 0);
  const key = protobuf.Writer.create()
    .uint32((field << 3) | 2)
    .uint32(length)
    .finish();
  return [key, ...parts];
}

function graphParts(graph: NonNullable<ModelProto['graph']>): Uint8Array[] {
  return [
    ...fieldsEncoded(GraphProtoType, graph, (id) => id < INITIALIZER_FIELD),
    ...initializerParts(graph.initializer),
    ...fieldsEncoded(GraphProtoType, graph, (id) => id > INITIALIZER_FIELD),
  ];
}

/** A graph's `initializer` entries, as GraphProtoType encodes them. */
function initializerParts(initializers: readonly TensorProto[]): Uint8Array[] {
  return initializers.flatMap((t) => lengthDelimited(INITIALIZER_FIELD, tensorParts(t)));
}

function tensorParts(t: TensorProto): Uint8Array[] {
  if (!isLarge(t)) return [TensorProtoType.encode(t as object).finish()];
  return [
    ...fieldsEncoded(TensorProtoType, t, (id) => id < RAW_DATA_FIELD),
    ...lengthDelimited(RAW_DATA_FIELD, [t.raw_data!]),
    ...fieldsEncoded(TensorProtoType, t, (id) => id > RAW_DATA_FIELD),
  ];
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
    fragments.push(concatenated(initializerParts(chunk))); // GraphProtoType's encoding of { initializer: chunk }
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
