/**
 * Bytes → ModelProto, with a named error for every way a file can fail to be a usable ONNX model.
 *
 * The decoder (schemaDecoder.ts) reads `bytes` fields as views into the input, so a large model decodes in
 * milliseconds and its weights are not copied: keep the input buffer alive and do not transfer it
 * away while the model is in use. Every tensor leaves here with its data in raw_data. It compiles no code
 * (protobufjs's decoder does, with `new Function`), so the page can decode a model too, under its content
 * security policy.
 */
import { decodeMessage } from './schemaDecoder.ts';
import { EmptyFileError, InvalidModelError, NotOnnxError, StudioError, TruncatedModelError } from './errors.ts';
import type { ModelProto, TensorProto } from './model.ts';
import { forEachTensor } from './walk.ts';
import { moveTypedFieldsToRaw } from './tensorData.ts';
import { type ExternalFiles, externalLocation, isExternal, resolveExternalTensor } from './externalData.ts';

export interface DecodeOptions {
  /** The model's external data files, by file name. */
  externalData?: ExternalFiles;
  /** Name of the file, for messages. */
  fileName?: string;
  /**
   * The model is only read (the split view's files): absent repeated fields are left to the prototype's frozen
   * empty arrays instead of arrays of their own (schemaDecoder.ts decodeMessage). Never for a model to be edited.
   */
  readOnly?: boolean;
}

const signatures: [string, number[]][] = [
  ['a PNG image', [0x89, 0x50, 0x4e, 0x47]],
  ['a JPEG image', [0xff, 0xd8, 0xff]],
  ['a GIF image', [0x47, 0x49, 0x46, 0x38]],
  ['a ZIP archive (a PyTorch checkpoint or Keras file?)', [0x50, 0x4b, 0x03, 0x04]],
  ['a PDF document', [0x25, 0x50, 0x44, 0x46]],
  ['a gzip archive', [0x1f, 0x8b]],
  ['a GGUF model', [0x47, 0x47, 0x55, 0x46]],
];

/** What the bytes look like when they are a known non-ONNX format. */
function sniff(bytes: Uint8Array): string | undefined {
  for (const [what, sig] of signatures) if (sig.every((b, i) => bytes[i] === b)) return what;
  if (bytes.length >= 8 && String.fromCharCode(...bytes.subarray(4, 8)) === 'TFL3') return 'a TensorFlow Lite model';
  const head = String.fromCharCode(...bytes.subarray(0, 64)).trimStart();
  if (head.startsWith('{') || head.startsWith('[')) return 'a JSON file';
  if (head.startsWith('<')) return 'an HTML or XML file';
  if (isText(bytes.subarray(0, 256))) return 'a text file';
  return undefined;
}

/**
 * Whether bytes read as text: printable ASCII, tabs and line ends, or UTF-8 beyond ASCII. A model never does: its first
 * byte is ir_version's tag, 0x08 (a control character).
 */
function isText(bytes: Uint8Array): boolean {
  return bytes.length > 0 && bytes.every((b) => b >= 0x20 || b === 0x09 || b === 0x0a || b === 0x0d);
}

/** Parses an ONNX model. Throws EmptyFileError, NotOnnxError, TruncatedModelError, InvalidModelError or ExternalDataError. */
export function decode(bytes: Uint8Array, options: DecodeOptions = {}): ModelProto {
  const file = options.fileName ? `"${options.fileName}"` : 'The file';
  const model = parseModelProto(bytes, file, options.readOnly);
  try {
    forEachTensor(model, (t) => {
      if (isExternal(t)) resolveExternalTensor(t, options.externalData);
      moveTypedFieldsToRaw(t);
    });
  } catch (e) {
    if (e instanceof StudioError) throw e;
    throw new InvalidModelError(
      `${file} holds a tensor that cannot be read: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  return model;
}

/**
 * Parses one serialized TensorProto (a test set's `input_0.pb`, a tensor saved by onnx.numpy_helper),
 * with its data moved to raw_data like a model's tensors. Throws EmptyFileError or InvalidModelError.
 */
export function decodeTensor(bytes: Uint8Array, fileName = 'the tensor file'): TensorProto {
  if (bytes.byteLength === 0) throw new EmptyFileError(`${fileName} is empty (0 bytes): it holds no tensor`);
  let tensor: TensorProto;
  try {
    tensor = decodeMessage<TensorProto>('onnx.TensorProto', bytes);
    moveTypedFieldsToRaw(tensor);
  } catch (e) {
    if (e instanceof StudioError) throw e;
    throw new InvalidModelError(
      `${fileName} is not a serialized ONNX TensorProto (${e instanceof Error ? e.message : String(e)})`,
    );
  }
  return tensor;
}

/** The names of the external data files a model refers to (empty for a self-contained model). */
export function externalDataNames(bytes: Uint8Array, fileName?: string): string[] {
  const names = new Set<string>();
  forEachTensor(parseModelProto(bytes, fileName ? `"${fileName}"` : 'The file'), (t) => {
    const location = isExternal(t) ? externalLocation(t) : undefined;
    if (location) names.add(location);
  });
  return [...names];
}

/** The protobuf parse, with the file-level checks and errors. */
function parseModelProto(bytes: Uint8Array, file: string, readOnly = false): ModelProto {
  if (bytes.byteLength === 0) throw new EmptyFileError(`${file} is empty (0 bytes): it is not an ONNX model`);
  const looksLike = sniff(bytes);
  if (looksLike) throw new NotOnnxError(`${file} is ${looksLike}, not an ONNX model`);

  let model: ModelProto;
  try {
    model = decodeMessage<ModelProto>('onnx.ModelProto', bytes, readOnly);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // A ModelProto starts with ir_version (field 1, varint: tag byte 0x08). A file that starts so and
    // ends inside a field was cut short; anything else is not a model.
    if (bytes[0] === 0x08 && /index out of range/.test(message)) {
      throw new TruncatedModelError(
        `${file} ends in the middle of the model (${bytes.byteLength.toLocaleString('en-US')} bytes): it is truncated or damaged, perhaps by an interrupted download or copy`,
      );
    }
    if (e instanceof RangeError && /call stack/i.test(message)) {
      throw new InvalidModelError(`${file} nests graphs too deeply to be read`);
    }
    throw new NotOnnxError(`${file} is not an ONNX model (it does not parse as an ONNX protobuf: ${message})`);
  }
  if (!model.graph || !model.ir_version || model.ir_version < 1) {
    throw new NotOnnxError(`${file} is not an ONNX model (no IR version or no graph in it)`);
  }
  return model;
}
