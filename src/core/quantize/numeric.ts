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

/**
 * Adding and subtracting 1.5 × 2^52 rounds a float64 to the nearest integer, ties to even (the FPU's default
 * mode), for |x| < 2^51: the same result as roundHalfToEven, without its branches. Hot loops clamp first (to
 * integer bounds, which commutes with rounding) so that the magnitude stays in range and infinities never reach it.
 */
export const ROUND_TIES_EVEN_MAGIC = 6755399441055744;

/**
 * QuantizeLinear of `data[from..to)` with one scale and zero point into `out` (same indices): the arithmetic of
 * quantizeValue (x / scale in float32, ties to even, saturation) in one tight loop for whole tensors.
 */
export function quantizeRun(
  data: ArrayLike<number>,
  out: { [i: number]: number },
  from: number,
  to: number,
  scale: number,
  zeroPoint: number,
  type: QuantType,
): void {
  const { min, max } = QUANT_TYPES[type];
  const lo = min - zeroPoint;
  const hi = max - zeroPoint;
  for (let i = from; i < to; i++) {
    let v = Math.fround(data[i] / scale);
    // Clamping to integer bounds before rounding equals rounding then saturating; NaN passes both tests and
    // becomes 0 on storing into an integer array, as quantizeValue's NaN does.
    v = v < lo ? lo : v > hi ? hi : v;
    out[i] = v + ROUND_TIES_EVEN_MAGIC - ROUND_TIES_EVEN_MAGIC + zeroPoint;
  }
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
