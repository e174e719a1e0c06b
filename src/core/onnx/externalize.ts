/**
 * Models whose weights do not fit one protobuf. A protobuf message cannot exceed 2 GB, so a larger model
 * keeps its initializers outside the .onnx file (ONNX's external-data convention: `data_location =
 * EXTERNAL` and `location` / `offset` / `length` entries). Two uses need that form:
 *
 *  - a runtime session (`sessionModel`): the model without its big initializers, plus the byte buffers
 *    those initializers live in, handed to onnxruntime as they are (web: the `externalData` session option;
 *    node: files in a temporary folder). The weights are not copied here: each buffer a decoded model's
 *    tensors view (the data file read at open, or a quantized weight) is named once as a whole and the
 *    tensors point into it by offset.
 *  - a written model (`externalDataLayout`): the .onnx plus one data file, each tensor at an offset
 *    aligned to 4 KiB (what onnxruntime needs to map it rather than copy it), as the parts of that file.
 *
 * Small tensors stay inline, as ONNX's own converter leaves them (under 1 KiB). The model given is never
 * changed: the result holds copies of the moved TensorProtos, without data.
 */
import { encode } from './encode.ts';
import type { ModelProto, TensorProto } from './model.ts';
import { SESSION_EXTERNAL_FROM_BYTES } from './sessionExternal.ts';

/** One file of external data: the name the model's tensors give as `location`, and its bytes. */
export interface ExternalDataFile {
  readonly path: string;
  readonly data: Uint8Array;
}

/** A model as a runtime loads it: the protobuf, and the external data files its tensors name (none for a self-contained model). */
export interface SessionModel {
  readonly bytes: Uint8Array;
  readonly externalData: readonly ExternalDataFile[];
}

/** Largest protobuf we let a model be; above it the weights go out as external data (2 GiB is protobuf's hard limit). */
export const PROTOBUF_LIMIT_BYTES = 2 ** 31 - 1;

export { SESSION_EXTERNAL_FROM_BYTES } from './sessionExternal.ts';

/** Tensors smaller than this stay inline (onnx's convert_model_to_external_data threshold). */
export const EXTERNAL_MIN_TENSOR_BYTES = 1024;

/** Offset alignment of tensors in a written data file: onnxruntime maps page-aligned data instead of copying it. */
export const EXTERNAL_ALIGN_BYTES = 4096;

/** Bytes of data the model's top-level initializers hold (what external data would take out). */
export function initializerBytes(model: ModelProto): number {
  let total = 0;
  for (const t of model.graph?.initializer ?? []) total += t.raw_data?.byteLength ?? 0;
  return total;
}

/** Whether a model this large must be written with external data (its initializers alone near protobuf's limit). */
export function needsExternalData(model: ModelProto): boolean {
  return initializerBytes(model) >= PROTOBUF_LIMIT_BYTES - 64 * 1024 ** 2;
}

interface Placement {
  readonly location: string;
  readonly offset: number;
}

/** The model with each placed initializer turned into an external reference (copies; the others shared). */
function withExternalInitializers(model: ModelProto, place: (t: TensorProto) => Placement | undefined): ModelProto {
  const graph = model.graph!;
  const initializer = graph.initializer.map((t) => {
    const at = place(t);
    if (!at) return t;
    const { raw_data, ...rest } = t;
    return {
      ...rest,
      data_location: 1,
      external_data: [
        { key: 'location', value: at.location },
        { key: 'offset', value: String(at.offset) },
        { key: 'length', value: String(raw_data!.byteLength) },
      ],
    } satisfies TensorProto;
  });
  return { ...model, graph: { ...graph, initializer } };
}

const movable = (t: TensorProto, minBytes: number): boolean =>
  (t.raw_data?.byteLength ?? 0) >= minBytes && t.data_location !== 1;

/**
 * The model as a session takes it. Under `externalFrom` bytes of initializers: one encoded buffer. Above:
 * the initializers of at least `minTensorBytes` point into the buffers they already view, one external
 * file (`buffer-<k>`) per distinct buffer, so nothing is copied.
 */
export function sessionModel(
  model: ModelProto,
  { externalFrom = SESSION_EXTERNAL_FROM_BYTES, minTensorBytes = EXTERNAL_MIN_TENSOR_BYTES } = {},
): SessionModel {
  if (!model.graph || initializerBytes(model) < externalFrom) return { bytes: encode(model), externalData: [] };
  const files = new Map<ArrayBufferLike, ExternalDataFile>();
  const external = withExternalInitializers(model, (t) => {
    if (!movable(t, minTensorBytes)) return undefined;
    const view = t.raw_data!;
    let file = files.get(view.buffer);
    if (!file) {
      file = { path: `buffer-${files.size}`, data: new Uint8Array(view.buffer) };
      files.set(view.buffer, file);
    }
    return { location: file.path, offset: view.byteOffset };
  });
  return { bytes: encode(external), externalData: [...files.values()] };
}

/** A model laid out for writing with external data: the model (tensors referring to `dataFile`) and the data file as parts. */
export interface ExternalDataLayout {
  readonly model: ModelProto;
  /** The data file's contents in order (tensor bytes and zero padding); their concatenation is the file. */
  readonly dataParts: readonly Uint8Array[];
  readonly dataBytes: number;
}

/** Lays out the model's initializers (those of at least `minTensorBytes`) in one data file named `dataFile`, each at a 4 KiB-aligned offset. */
export function externalDataLayout(
  model: ModelProto,
  dataFile: string,
  minTensorBytes = EXTERNAL_MIN_TENSOR_BYTES,
): ExternalDataLayout {
  const dataParts: Uint8Array[] = [];
  let offset = 0;
  const external = withExternalInitializers(model, (t) => {
    if (!movable(t, minTensorBytes)) return undefined;
    const pad = (EXTERNAL_ALIGN_BYTES - (offset % EXTERNAL_ALIGN_BYTES)) % EXTERNAL_ALIGN_BYTES;
    if (pad) dataParts.push(new Uint8Array(pad));
    offset += pad;
    const at = offset;
    dataParts.push(t.raw_data!);
    offset += t.raw_data!.byteLength;
    return { location: dataFile, offset: at };
  });
  return { model: external, dataParts, dataBytes: offset };
}

/** The data file's name ONNX's tools give a model's external data: the model's file name plus `.data`. */
export function externalDataFileName(modelFileName: string): string {
  return `${modelFileName.replace(/^.*[\\/]/, '')}.data`;
}

/** What a runtime session is made from: one encoded model, or a model with its external data files. */
export type ModelBytes = Uint8Array | SessionModel;

/** The model bytes as a SessionModel (plain bytes: no external data). */
export function asSessionModel(model: ModelBytes): SessionModel {
  return model instanceof Uint8Array ? { bytes: model, externalData: [] } : model;
}
