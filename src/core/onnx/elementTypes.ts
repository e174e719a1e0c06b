/**
 * What each ONNX element type is: its name, its storage size, and which typed field of TensorProto
 * carries it when a model does not use raw_data. One table, read by the tensor codecs and the summary.
 */
import { DataType } from './model.ts';

export type TypedField = 'float_data' | 'int32_data' | 'int64_data' | 'double_data' | 'uint64_data' | 'string_data';

export interface ElementTypeInfo {
  readonly name: string;
  /** Bits one element takes in raw_data (4 for int4, 2 for int2: packed, low bits first). */
  readonly bits: number;
  /** The typed field that holds the type outside raw_data (ONNX onnx.proto comments on each field). */
  readonly field: TypedField;
  readonly isFloat: boolean;
}

const T = DataType;
const table: Record<number, ElementTypeInfo> = {
  [T.FLOAT]: { name: 'float32', bits: 32, field: 'float_data', isFloat: true },
  [T.UINT8]: { name: 'uint8', bits: 8, field: 'int32_data', isFloat: false },
  [T.INT8]: { name: 'int8', bits: 8, field: 'int32_data', isFloat: false },
  [T.UINT16]: { name: 'uint16', bits: 16, field: 'int32_data', isFloat: false },
  [T.INT16]: { name: 'int16', bits: 16, field: 'int32_data', isFloat: false },
  [T.INT32]: { name: 'int32', bits: 32, field: 'int32_data', isFloat: false },
  [T.INT64]: { name: 'int64', bits: 64, field: 'int64_data', isFloat: false },
  [T.STRING]: { name: 'string', bits: 0, field: 'string_data', isFloat: false },
  [T.BOOL]: { name: 'bool', bits: 8, field: 'int32_data', isFloat: false },
  [T.FLOAT16]: { name: 'float16', bits: 16, field: 'int32_data', isFloat: true },
  [T.DOUBLE]: { name: 'float64', bits: 64, field: 'double_data', isFloat: true },
  [T.UINT32]: { name: 'uint32', bits: 32, field: 'uint64_data', isFloat: false },
  [T.UINT64]: { name: 'uint64', bits: 64, field: 'uint64_data', isFloat: false },
  [T.COMPLEX64]: { name: 'complex64', bits: 64, field: 'float_data', isFloat: true },
  [T.COMPLEX128]: { name: 'complex128', bits: 128, field: 'double_data', isFloat: true },
  [T.BFLOAT16]: { name: 'bfloat16', bits: 16, field: 'int32_data', isFloat: true },
  [T.FLOAT8E4M3FN]: { name: 'float8e4m3fn', bits: 8, field: 'int32_data', isFloat: true },
  [T.FLOAT8E4M3FNUZ]: { name: 'float8e4m3fnuz', bits: 8, field: 'int32_data', isFloat: true },
  [T.FLOAT8E5M2]: { name: 'float8e5m2', bits: 8, field: 'int32_data', isFloat: true },
  [T.FLOAT8E5M2FNUZ]: { name: 'float8e5m2fnuz', bits: 8, field: 'int32_data', isFloat: true },
  [T.UINT4]: { name: 'uint4', bits: 4, field: 'int32_data', isFloat: false },
  [T.INT4]: { name: 'int4', bits: 4, field: 'int32_data', isFloat: false },
  [T.FLOAT4E2M1]: { name: 'float4e2m1', bits: 4, field: 'int32_data', isFloat: true },
  [T.FLOAT8E8M0]: { name: 'float8e8m0', bits: 8, field: 'int32_data', isFloat: true },
  [T.UINT2]: { name: 'uint2', bits: 2, field: 'int32_data', isFloat: false },
  [T.INT2]: { name: 'int2', bits: 2, field: 'int32_data', isFloat: false },
};

/** The table entry of an ONNX data type code, or undefined for UNDEFINED and unknown codes. */
export function elementType(dataType: number | undefined): ElementTypeInfo | undefined {
  return dataType === undefined ? undefined : table[dataType];
}

/** A readable name of a data type code ('float32', 'int8', …, or 'type 99'). */
export function elementTypeName(dataType: number | undefined): string {
  return elementType(dataType)?.name ?? `type ${dataType ?? 0}`;
}

/** Number of elements of a shape (1 for a scalar). */
export function elementCount(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) n *= Number(d);
  return n;
}

/** Bytes `count` elements of the type take in raw_data (sub-byte types packed, rounded up). */
export function rawByteLength(dataType: number, count: number): number {
  const info = elementType(dataType);
  if (!info || info.bits === 0) return 0;
  return Math.ceil((count * info.bits) / 8);
}
