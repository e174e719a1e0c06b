/**
 * The integer side of quantization: element types, their ranges, and ONNX's rounding.
 *
 * Every piece of code that turns a real number into an integer code goes through here, so that the
 * quantizer, the calibrators' error searches and the tests agree bit for bit with onnxruntime's
 * QuantizeLinear: round half to even, then saturate (ONNX operator spec, QuantizeLinear).
 * Pure arithmetic; knows nothing of models.
 */

/** Integer element types the quantizer writes. */
export type QuantType = 'int4' | 'uint4' | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32';

export interface QuantTypeInfo {
  /** Smallest and largest representable code. */
  readonly min: number;
  readonly max: number;
  readonly bits: number;
  readonly signed: boolean;
  /** ONNX TensorProto.DataType code of the type. */
  readonly onnxType: number;
}

/** The full range of each type (ONNX TensorProto.DataType codes: INT8=3, UINT8=2, ...). */
export const QUANT_TYPES: Readonly<Record<QuantType, QuantTypeInfo>> = {
  int4: { min: -8, max: 7, bits: 4, signed: true, onnxType: 22 },
  uint4: { min: 0, max: 15, bits: 4, signed: false, onnxType: 21 },
  int8: { min: -128, max: 127, bits: 8, signed: true, onnxType: 3 },
  uint8: { min: 0, max: 255, bits: 8, signed: false, onnxType: 2 },
  int16: { min: -32768, max: 32767, bits: 16, signed: true, onnxType: 5 },
  uint16: { min: 0, max: 65535, bits: 16, signed: false, onnxType: 4 },
  int32: { min: -2147483648, max: 2147483647, bits: 32, signed: true, onnxType: 6 },
};

export function isQuantType(value: unknown): value is QuantType {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(QUANT_TYPES, value);
}

/**
 * Round to the nearest integer, ties to the even neighbour (IEEE 754 roundTiesToEven), as ONNX's
 * QuantizeLinear and numpy.rint do. Math.round(2.5) is 3; this gives 2.
 */
export function roundHalfToEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const floor = Math.floor(x);
  const diff = x - floor;
  if (diff < 0.5) return floor;
  if (diff > 0.5) return floor + 1;
  return floor % 2 === 0 ? floor : floor + 1;
}

/** Clamp an integer code into the type's range. */
export function saturate(q: number, type: QuantType): number {
  const { min, max } = QUANT_TYPES[type];
  return q < min ? min : q > max ? max : q;
}

/** QuantizeLinear of one value: saturate(roundHalfToEven(x / scale) + zeroPoint). */
export function quantizeValue(x: number, scale: number, zeroPoint: number, type: QuantType): number {
  // ONNX computes x / scale in float32; fround keeps us on the same side of every tie.
  return saturate(roundHalfToEven(Math.fround(x / scale)) + zeroPoint, type);
}

/** DequantizeLinear of one code: (q - zeroPoint) * scale, in float32. */
export function dequantizeValue(q: number, scale: number, zeroPoint: number): number {
  return Math.fround((q - zeroPoint) * scale);
}
