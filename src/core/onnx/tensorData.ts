/**
 * Tensor codecs: the elements of a TensorProto as typed arrays, and TensorProtos from typed arrays.
 *
 * After decode every tensor keeps its bytes in raw_data (little-endian, sub-byte types packed low
 * bits first, as onnx.proto specifies); `moveTypedFieldsToRaw` is what gets it there. Reads return
 * views into the model's buffer when alignment allows: treat them as read-only, copy before editing.
 */
import { InvalidModelError } from './errors.ts';
import { DataType, type TensorProto } from './model.ts';
import { elementCount, elementType, elementTypeName, rawByteLength } from './elementTypes.ts';
import { bfloat16ToNumber, float16Values } from './halfFloat.ts';

export type TensorArray =
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

type ArrayCtor = {
  new (buffer: ArrayBufferLike, byteOffset: number, length: number): TensorArray;
  BYTES_PER_ELEMENT: number;
};

/** The typed array that holds one element per entry of each byte-sized type. */
function arrayTypeOf(dataType: number): ArrayCtor | undefined {
  switch (dataType) {
    case DataType.FLOAT:
      return Float32Array;
    case DataType.DOUBLE:
      return Float64Array;
    case DataType.INT8:
      return Int8Array;
    case DataType.UINT8:
    case DataType.BOOL:
      return Uint8Array;
    case DataType.INT16:
      return Int16Array;
    case DataType.UINT16:
    case DataType.FLOAT16:
    case DataType.BFLOAT16:
      return Uint16Array;
    case DataType.INT32:
      return Int32Array;
    case DataType.UINT32:
      return Uint32Array;
    case DataType.INT64:
      return BigInt64Array;
    case DataType.UINT64:
      return BigUint64Array;
    case DataType.FLOAT8E4M3FN:
    case DataType.FLOAT8E4M3FNUZ:
    case DataType.FLOAT8E5M2:
    case DataType.FLOAT8E5M2FNUZ:
    case DataType.FLOAT8E8M0:
      return Uint8Array;
    default:
      return undefined;
  }
}

/** Number of elements the tensor's dims describe. */
export function tensorElementCount(t: TensorProto): number {
  return elementCount(t.dims);
}

/** The tensor's raw bytes (empty when it has none). */
export function rawBytes(t: TensorProto): Uint8Array {
  return t.raw_data ?? new Uint8Array(0);
}

/**
 * The elements as their natural typed array: float16/bfloat16/float8 as their bit patterns, bool as
 * 0/1 bytes, int4/uint4/int2/uint2 unpacked one element per byte (sign-extended for the signed ones).
 */
export function readTensor(t: TensorProto): TensorArray {
  const dataType = t.data_type ?? 0;
  const count = tensorElementCount(t);
  const bytes = rawBytes(t);
  const info = elementType(dataType);
  if (!info || info.field === 'string_data') {
    throw new InvalidModelError(
      `tensor "${t.name ?? ''}" has element type ${elementTypeName(dataType)}, which holds no numbers`,
    );
  }
  if (bytes.byteLength !== rawByteLength(dataType, count)) {
    throw new InvalidModelError(
      `tensor "${t.name ?? ''}": ${bytes.byteLength} bytes of data for ${count} ${info.name} elements (expected ${rawByteLength(dataType, count)})`,
    );
  }
  if (info.bits < 8)
    return unpackSubByte(bytes, count, info.bits, !info.name.startsWith('u') && info.name.startsWith('int'));
  const Ctor = arrayTypeOf(dataType);
  if (!Ctor) throw new InvalidModelError(`tensor "${t.name ?? ''}": element type ${info.name} cannot be read`);
  if (bytes.byteOffset % Ctor.BYTES_PER_ELEMENT === 0) return new Ctor(bytes.buffer, bytes.byteOffset, count);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Ctor(copy.buffer, 0, count);
}

function unpackSubByte(bytes: Uint8Array, count: number, bits: number, signed: boolean): Int8Array | Uint8Array {
  const out = signed ? new Int8Array(count) : new Uint8Array(count);
  const perByte = 8 / bits;
  const mask = (1 << bits) - 1;
  const signBit = 1 << (bits - 1);
  for (let i = 0; i < count; i++) {
    let v = (bytes[Math.floor(i / perByte)] >> ((i % perByte) * bits)) & mask;
    if (signed && v & signBit) v -= 1 << bits;
    out[i] = v;
  }
  return out;
}

function packSubByte(values: ArrayLike<number>, bits: number): Uint8Array {
  const perByte = 8 / bits;
  const mask = (1 << bits) - 1;
  const out = new Uint8Array(Math.ceil(values.length / perByte));
  for (let i = 0; i < values.length; i++) {
    out[Math.floor(i / perByte)] |= (values[i] & mask) << ((i % perByte) * bits);
  }
  return out;
}

/** Four bytes to read one element of a one-element tensor through, whatever its alignment in the model's buffer. */
const SCALAR_BYTES = new Uint8Array(4);
const SCALAR_VIEW = new DataView(SCALAR_BYTES.buffer);

/**
 * The value of a one-element tensor of a common byte-sized type (a Q/DQ scale or zero point), or undefined for any
 * other tensor. A QDQ file holds tens of thousands of them: read through a scratch buffer, each costs one small
 * array rather than a view, an aligned copy and a conversion.
 */
function scalarValue(t: TensorProto): number | undefined {
  const bytes = t.raw_data;
  if (!bytes || bytes.byteLength > 4 || tensorElementCount(t) !== 1) return undefined;
  const n = bytes.byteLength;
  switch (t.data_type) {
    case DataType.FLOAT:
      if (n !== 4) return undefined;
      SCALAR_BYTES.set(bytes);
      return SCALAR_VIEW.getFloat32(0, true);
    case DataType.INT8:
      return n === 1 ? (bytes[0] << 24) >> 24 : undefined;
    case DataType.UINT8:
      return n === 1 ? bytes[0] : undefined;
    case DataType.INT16:
      return n === 2 ? ((bytes[0] | (bytes[1] << 8)) << 16) >> 16 : undefined;
    case DataType.UINT16:
      return n === 2 ? bytes[0] | (bytes[1] << 8) : undefined;
    case DataType.INT32:
      return n === 4 ? bytes[0] | (bytes[1] << 8) | (bytes[2] << 16) | (bytes[3] << 24) : undefined;
    default:
      return undefined;
  }
}

/** The numeric value of every element as float32 (half floats decoded, integers converted). */
export function readTensorAsFloat32(t: TensorProto): Float32Array {
  const scalar = scalarValue(t);
  if (scalar !== undefined) {
    const one = new Float32Array(1);
    one[0] = scalar;
    return one;
  }
  const data = readTensor(t);
  if (data instanceof Float32Array) return data;
  const out = new Float32Array(data.length);
  const dataType = t.data_type ?? 0;
  if (dataType === DataType.FLOAT16) {
    const values = float16Values();
    for (let i = 0; i < data.length; i++) out[i] = values[Number(data[i]) & 0xffff];
  } else if (dataType === DataType.BFLOAT16)
    for (let i = 0; i < data.length; i++) out[i] = bfloat16ToNumber(Number(data[i]));
  else if (!elementType(dataType)?.isFloat || dataType === DataType.DOUBLE)
    for (let i = 0; i < data.length; i++) out[i] = Number(data[i]);
  else
    throw new InvalidModelError(
      `tensor "${t.name ?? ''}": ${elementTypeName(dataType)} values cannot be read as float32`,
    );
  return out;
}

/**
 * A new TensorProto holding `data` in raw_data. For int4/uint4 pass one element per entry of an
 * Int8Array/Uint8Array; they are packed two to a byte.
 */
export function makeTensor(name: string, dataType: number, dims: readonly number[], data: TensorArray): TensorProto {
  const info = elementType(dataType);
  if (!info || info.bits === 0)
    throw new InvalidModelError(`cannot build a tensor of element type ${elementTypeName(dataType)}`);
  const count = elementCount(dims);
  if (data.length !== count)
    throw new InvalidModelError(`tensor "${name}": ${data.length} values for shape [${dims.join(', ')}]`);
  const raw =
    info.bits < 8
      ? packSubByte(data as ArrayLike<number>, info.bits)
      : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return { ...emptyTensor(dims), name, data_type: dataType, raw_data: raw };
}

/** A tensor of these dims with no name, type or data and every repeated field empty: the base others fill in. */
export function emptyTensor(dims: readonly number[]): TensorProto {
  return {
    dims: [...dims],
    float_data: [],
    int32_data: [],
    string_data: [],
    int64_data: [],
    external_data: [],
    double_data: [],
    uint64_data: [],
    metadata_props: [],
  };
}

/**
 * Moves the data of a tensor stored in its typed fields (float_data, int32_data, …) into raw_data, so
 * every reader has one place to look. Checks the element count against the dims.
 */
export function moveTypedFieldsToRaw(t: TensorProto): void {
  const dataType = t.data_type ?? 0;
  const info = elementType(dataType);
  const where = `tensor "${t.name ?? ''}"`;
  if (t.dims.some((d) => !Number.isSafeInteger(Number(d)) || Number(d) < 0)) {
    throw new InvalidModelError(`${where} has an invalid shape [${t.dims.join(', ')}]`);
  }
  if (t.data_location === 1) return; // external: resolved (or refused) by externalData.ts
  if (!info) throw new InvalidModelError(`${where} has an unknown element type (${dataType})`);
  if (info.field === 'string_data') return;
  const count = elementCount(t.dims);
  if (t.raw_data && t.raw_data.byteLength > 0) {
    if (t.raw_data.byteLength !== rawByteLength(dataType, count)) {
      throw new InvalidModelError(
        `${where}: ${t.raw_data.byteLength} bytes of data for ${count} ${info.name} elements (expected ${rawByteLength(dataType, count)})`,
      );
    }
    return;
  }
  const values = t[info.field] as number[] | undefined;
  const entries = values?.length ?? 0;
  // Complex types take two entries per element; sub-byte types hold one packed byte per entry.
  const expected =
    info.bits < 8 ? Math.ceil((count * info.bits) / 8) : info.name.startsWith('complex') ? count * 2 : count;
  if (entries !== expected) {
    if (entries === 0 && count === 0) return;
    throw new InvalidModelError(`${where}: ${entries} values in ${info.field} for ${count} ${info.name} elements`);
  }
  t.raw_data = typedValuesToBytes(values ?? [], dataType, info.bits);
  t[info.field] = [];
}

function typedValuesToBytes(values: number[], dataType: number, bits: number): Uint8Array {
  if (bits < 8) return Uint8Array.from(values, (v) => v & 0xff);
  switch (dataType) {
    case DataType.FLOAT:
    case DataType.COMPLEX64:
      return new Uint8Array(Float32Array.from(values).buffer);
    case DataType.DOUBLE:
    case DataType.COMPLEX128:
      return new Uint8Array(Float64Array.from(values).buffer);
    case DataType.INT64:
      return new Uint8Array(BigInt64Array.from(values, (v) => BigInt.asIntN(64, saturatingBigInt(v, true))).buffer);
    case DataType.UINT64:
      return new Uint8Array(BigUint64Array.from(values, (v) => saturatingBigInt(v, false)).buffer);
    case DataType.UINT32:
      return new Uint8Array(Uint32Array.from(values).buffer);
    case DataType.INT32:
      return new Uint8Array(Int32Array.from(values).buffer);
    case DataType.INT16:
      return new Uint8Array(Int16Array.from(values).buffer);
    // float16/bfloat16 are stored as their uint16 bit patterns (onnx.proto, int32_data).
    case DataType.UINT16:
    case DataType.FLOAT16:
    case DataType.BFLOAT16:
      return new Uint8Array(Uint16Array.from(values).buffer);
    case DataType.INT8:
      return new Uint8Array(Int8Array.from(values).buffer);
    default:
      return Uint8Array.from(values, (v) => v & 0xff); // uint8, bool, float8 formats
  }
}

/** A 64-bit integer from a decoded number; values past the limits (rounded sentinels such as INT64_MAX) saturate. */
export function saturatingBigInt(v: number, signed = true): bigint {
  const max = signed ? 2n ** 63n - 1n : 2n ** 64n - 1n;
  const min = signed ? -(2n ** 63n) : 0n;
  const b = BigInt(Math.trunc(v));
  return b > max ? max : b < min ? min : b;
}
