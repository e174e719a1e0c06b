/**
 * float16 and bfloat16 bit patterns to and from float32 numbers. Models store half floats as raw
 * 16-bit patterns; the studio computes in float32.
 */

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE 754 binary16 bits → the number they encode. */
export function float16ToNumber(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

let float16Table: Float32Array | null = null;

/**
 * Every float16 bit pattern's value as a float32 (each is exact there): float16ToNumber once per pattern, so a
 * tensor of millions of half floats costs one lookup each (calibrating a float16 model reads every exposed tensor).
 */
export function float16Values(): Float32Array {
  if (float16Table === null) {
    float16Table = new Float32Array(0x10000);
    for (let bits = 0; bits < 0x10000; bits++) float16Table[bits] = float16ToNumber(bits);
  }
  return float16Table;
}

/** Float16 bit patterns (as onnxruntime hands a float16 tensor, or an .npy stores it) as float32 values, by the table. */
export function float16BitsToFloat32(bits: Uint16Array): Float32Array {
  const values = float16Values();
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = values[bits[i]];
  return out;
}

/** bfloat16 bits → the number they encode (the high half of a float32). */
export function bfloat16ToNumber(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0];
}

/**
 * A number → the nearest float16 bits, ties to even (as numpy's astype(float16) and onnxruntime's Cast);
 * beyond ±65504 it overflows to ±∞, NaN stays NaN.
 */
export function numberToFloat16(value: number): number {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  const mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal float16 (or zero): shift the 24-bit significand into the 10-bit field, ties to even.
    if (e < -10) return sign;
    const significand = mantissa | 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = significand & ((1 << shift) - 1);
    let bits = significand >>> shift;
    if (rest > half || (rest === half && bits & 1)) bits++;
    return sign | bits;
  }
  let bits = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && bits & 1)) bits++; // may carry into the exponent, up to ∞: correct
  return sign | bits;
}

/** A number → the nearest bfloat16 bits, ties to even (onnxruntime's Cast to bfloat16 rounds so); NaN stays NaN. */
export function numberToBfloat16(value: number): number {
  f32[0] = value;
  const x = u32[0];
  if ((x & 0x7f800000) === 0x7f800000 && x & 0x7fffff) return ((x >>> 16) & 0xffff) | 0x40;
  const rounded = x + 0x7fff + ((x >>> 16) & 1);
  return (rounded >>> 16) & 0xffff;
}
