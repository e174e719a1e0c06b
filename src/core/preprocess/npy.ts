/**
 * NumPy `.npy` files as model inputs: read the format, and check an array against a model input.
 *
 * Users who already preprocess in Python hand calibration data over as .npy files (one array per
 * sample), which skips image decoding and preprocessing altogether. This module reads the format
 * as numpy.lib.format documents it (NEP 1, versions 1.0, 2.0 and 3.0): the magic `\x93NUMPY`, a
 * version, a little-endian header length (2 bytes in 1.0, 4 after), a Python dict literal with
 * `descr`, `fortran_order` and `shape`, padded so the data starts 64-byte aligned, then the raw
 * C-order data. Float arrays come back as Float32Array (float64 and float16 narrowed, since model
 * inputs are float32); integer arrays keep their type. Structured dtypes and Fortran order are
 * refused with named errors rather than guessed at. It never evaluates the header as code.
 */
import { float16BitsToFloat32 } from '../onnx/halfFloat.ts';
import type { TensorArray } from '../onnx/tensorData.ts';
import {
  NpyDtypeError,
  NpyFormatError,
  NpyFortranOrderError,
  NpyInputMismatchError,
  NpyNonFiniteError,
} from './errors.ts';
import type { InputDim } from './toTensor.ts';

/** Element types read, named as the ONNX summary names them. */
export type NpyDtype =
  | 'float16'
  | 'float32'
  | 'float64'
  | 'int8'
  | 'uint8'
  | 'int16'
  | 'uint16'
  | 'int32'
  | 'uint32'
  | 'int64'
  | 'uint64'
  | 'bool';

/** A tensor's typed array but float64 (float dtypes are read as float32). */
export type NpyData = Exclude<TensorArray, Float64Array>;

export interface NpyArray {
  /** Elements in C order; Float32Array for every float dtype. */
  data: NpyData;
  dims: number[];
  /** The dtype stored in the file (before float narrowing). */
  dtype: NpyDtype;
}

/** What `checkNpyInput` needs of a model input (structurally an ONNX `TensorSummary`). */
export interface ModelInputInfo {
  name: string;
  /** 'float32', 'int64', … */
  elemType: string;
  /** Sizes or symbolic names ('?' for unnamed unknowns); null when the rank is unknown. */
  shape: InputDim[] | null;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

/** numpy type character + item size → dtype ('b' is bool, 'i' signed, 'u' unsigned, 'f' float). */
const DTYPES: Record<string, NpyDtype> = {
  b1: 'bool',
  i1: 'int8',
  u1: 'uint8',
  i2: 'int16',
  u2: 'uint16',
  i4: 'int32',
  u4: 'uint32',
  i8: 'int64',
  u8: 'uint64',
  f2: 'float16',
  f4: 'float32',
  f8: 'float64',
};
const FLOAT_DTYPES = new Set<NpyDtype>(['float16', 'float32', 'float64']);

function header(text: string, key: string, pattern: string, fileName: string): RegExpMatchArray {
  const match = new RegExp(`['"]${key}['"]\\s*:\\s*${pattern}`).exec(text);
  if (!match)
    throw new NpyFormatError(`${fileName}: the .npy header has no readable '${key}' entry (header: ${text.trim()}).`);
  return match;
}

function parseShape(text: string, fileName: string): number[] {
  const inner = text.trim();
  if (inner === '') return [];
  const dims = inner
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  return dims.map((d) => {
    // Python 2 era files may write longs as `3L`.
    const n = /^(\d+)L?$/.exec(d);
    if (!n)
      throw new NpyFormatError(
        `${fileName}: the .npy shape (${text}) has a dimension "${d}" that is not a whole number.`,
      );
    return Number(n[1]);
  });
}

/** The array in a .npy file's bytes; `fileName` names the file in errors. */
export function parseNpy(bytes: Uint8Array, fileName = 'the .npy file'): NpyArray {
  if (bytes.length < 10 || MAGIC.some((m, i) => bytes[i] !== m)) {
    throw new NpyFormatError(
      `${fileName} is not a NumPy .npy file: it does not start with the magic bytes \\x93NUMPY.`,
    );
  }
  const major = bytes[6];
  if (major < 1 || major > 3) {
    throw new NpyFormatError(
      `${fileName} is .npy format version ${major}.${bytes[7]}; versions 1.0, 2.0 and 3.0 are read.`,
    );
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lengthBytes = major === 1 ? 2 : 4;
  if (bytes.length < 8 + lengthBytes) throw new NpyFormatError(`${fileName} ends inside the .npy header.`);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const dataStart = 8 + lengthBytes + headerLength;
  if (bytes.length < dataStart)
    throw new NpyFormatError(`${fileName} ends inside the .npy header (${headerLength} bytes announced).`);
  // Versions 1 and 2 write the header in latin-1, version 3 in UTF-8.
  const text = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(8 + lengthBytes, dataStart));

  const descrMatch = /['"]descr['"]\s*:\s*(['"])([^'"]*)\1/.exec(text);
  if (!descrMatch) {
    if (/['"]descr['"]\s*:\s*\[/.test(text)) {
      throw new NpyDtypeError(`${fileName} holds a structured (record) array; only plain numeric arrays are read.`);
    }
    throw new NpyFormatError(`${fileName}: the .npy header has no readable 'descr' entry (header: ${text.trim()}).`);
  }
  const descr = descrMatch[2];
  const fortran = header(text, 'fortran_order', '(True|False)', fileName)[1] === 'True';
  const dims = parseShape(header(text, 'shape', '\\(([^)]*)\\)', fileName)[1], fileName);

  const typed = /^([<>|=])([a-zA-Z])(\d+)$/.exec(descr);
  const dtype = typed ? DTYPES[`${typed[2]}${typed[3]}`] : undefined;
  if (!typed || !dtype) {
    throw new NpyDtypeError(
      `${fileName} has dtype '${descr}', which is not read; use float32 ('<f4'), float64, float16, a (u)int of 8 to 64 bits, or bool.`,
    );
  }
  if (fortran) {
    throw new NpyFortranOrderError(
      `${fileName} is stored in Fortran order; save it in C order (np.save(path, np.ascontiguousarray(a))).`,
    );
  }
  const bigEndian = typed[1] === '>';
  const itemSize = Number(typed[3]);
  const count = dims.reduce((a, b) => a * b, 1);
  const byteLength = count * itemSize;
  if (bytes.length - dataStart < byteLength) {
    throw new NpyFormatError(
      `${fileName} is truncated: shape [${dims.join(', ')}] of ${descr} needs ${byteLength} data bytes, the file has ${bytes.length - dataStart}.`,
    );
  }
  return { data: readData(bytes, dataStart, count, dtype, itemSize, bigEndian), dims, dtype };
}

type TypedArrayConstructor = { new (buffer: ArrayBuffer): NpyData; readonly BYTES_PER_ELEMENT: number };

const CONSTRUCTORS: Record<Exclude<NpyDtype, 'float16' | 'float64'>, TypedArrayConstructor> = {
  bool: Uint8Array,
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  float32: Float32Array,
};

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Reverses the byte order of each `size`-byte item in place. */
function swapBytes(bytes: Uint8Array, size: number): void {
  for (let i = 0; i < bytes.length; i += size) {
    for (let a = i, b = i + size - 1; a < b; a++, b--) {
      const t = bytes[a];
      bytes[a] = bytes[b];
      bytes[b] = t;
    }
  }
}

function readData(
  bytes: Uint8Array,
  start: number,
  count: number,
  dtype: NpyDtype,
  itemSize: number,
  bigEndian: boolean,
): NpyData {
  // A copy of the data bytes, in host order: a fresh buffer is aligned for any typed array. (Not
  // `bytes.slice`: on a Node Buffer that is a view into the shared pool, not a copy.)
  const own = new Uint8Array(count * itemSize);
  own.set(bytes.subarray(start, start + count * itemSize));
  if (itemSize > 1 && bigEndian === HOST_LITTLE_ENDIAN) swapBytes(own, itemSize);
  if (dtype === 'float64') return Float32Array.from(new Float64Array(own.buffer));
  if (dtype === 'float16') return float16BitsToFloat32(new Uint16Array(own.buffer));
  return new CONSTRUCTORS[dtype](own.buffer);
}

/**
 * Throws NpyInputMismatchError unless the array fits the input: same rank, equal sizes, symbolic
 * dimensions equal to their `dims` value when given (else any size, the same wherever the name
 * repeats), '?' anything; a float input takes any float dtype, others exactly their own. With the values, a float
 * input's must be finite (NpyNonFiniteError).
 */
export function checkNpyInput(
  array: Pick<NpyArray, 'dims' | 'dtype'> & { readonly data?: NpyData },
  input: ModelInputInfo,
  fileName = 'the .npy file',
  dims: Readonly<Record<string, number>> = {},
): void {
  const expected = input.shape;
  const bound = new Map<string, number>();
  const shown = expected?.map((d) =>
    typeof d === 'string' && Object.prototype.hasOwnProperty.call(dims, d) ? dims[d] : d,
  );
  const mismatch = () =>
    new NpyInputMismatchError(
      `${fileName} has shape [${array.dims.join(',')}] but input '${input.name}' expects [${(shown ?? []).join(',')}].`,
    );
  if (expected) {
    if (expected.length !== array.dims.length) throw mismatch();
    expected.forEach((d, i) => {
      const actual = array.dims[i];
      if (typeof d === 'number') {
        if (d > 0 && d !== actual) throw mismatch();
        return;
      }
      if (d === '?' || d === '') return;
      const want = Object.prototype.hasOwnProperty.call(dims, d) ? dims[d] : bound.get(d);
      if (want !== undefined && want !== actual) throw mismatch();
      bound.set(d, actual);
    });
  }
  const floatInput = input.elemType === 'float32' || input.elemType === 'float64' || input.elemType === 'float16';
  const fits = floatInput ? FLOAT_DTYPES.has(array.dtype) : input.elemType === array.dtype;
  if (!fits) {
    throw new NpyInputMismatchError(
      `${fileName} holds ${array.dtype} but input '${input.name}' takes ${input.elemType}` +
        `${floatInput ? '; save the array as float32 (a.astype(np.float32))' : `; save it as ${input.elemType}`}.`,
    );
  }
  if (floatInput && array.data instanceof Float32Array) checkFinite(array.data, fileName);
}

/** Throws NpyNonFiniteError when float values hold NaN or ±Infinity (a sample saved before its state was set, say). */
function checkFinite(data: Float32Array, fileName: string): void {
  let nan = 0;
  let infinite = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v - v !== 0) {
      if (Number.isNaN(v)) nan++;
      else infinite++;
    }
  }
  if (nan + infinite === 0) return;
  const what = [nan ? `${nan} NaN` : '', infinite ? `${infinite} infinite` : ''].filter(Boolean).join(' and ');
  throw new NpyNonFiniteError(
    `${fileName} holds ${what} of its ${data.length} values: no range can be calibrated, nor an output judged, on them (replace them, e.g. np.nan_to_num, or leave the sample out).`,
  );
}
