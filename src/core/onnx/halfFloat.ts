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

/** bfloat16 bits → the number they encode (the high half of a float32). */
export function bfloat16ToNumber(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0];
}
