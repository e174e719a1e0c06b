/**
 * Numbers written the way Quark's evaluate tool prints them.
 *
 * quark/onnx/tools/evaluate.py prints `np.mean(...)`, `np.min(...)` of float32 metric values in
 * f-strings, so what a user sees is numpy's `str` of a float32 scalar: the shortest decimal that
 * reads back as the same float32, positional between 1e-4 and 1e6, scientific outside with a
 * signed two-digit exponent, and `nan` / `inf` spelled as numpy spells them. Matching that lets a
 * user diff our summary against Quark's. Only formatting: rounds to float32 for display, nothing
 * else.
 */

/** Exact decimal digits (no trailing zeros) and decimal exponent of a finite float32 `abs` > 0. */
function exactFloat32Decimal(abs: number): { digits: string; exponent: number } {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, abs);
  const bits = view.getUint32(0);
  const biased = (bits >>> 23) & 0xff;
  const fraction = bits & 0x7fffff;
  // abs = mantissa · 2^power exactly (IEEE 754 binary32; biased exponent 0 is subnormal).
  const mantissa = BigInt(biased === 0 ? fraction : fraction | 0x800000);
  const power = (biased === 0 ? 1 : biased) - 150;
  // For a negative power, m · 2^p = m · 5^(−p) / 10^(−p): an integer's digits, shifted.
  const integer = power >= 0 ? mantissa << BigInt(power) : mantissa * 5n ** BigInt(-power);
  const text = integer.toString();
  const shift = power >= 0 ? 0 : power;
  return { digits: text.replace(/0+$/, ''), exponent: text.length - 1 + shift };
}

/** `digits` (exponent `exponent`) rounded to `precision` significant digits, ties to even. */
function roundDigits(digits: string, exponent: number, precision: number): { digits: string; exponent: number } {
  if (digits.length <= precision) return { digits, exponent };
  const head = digits.slice(0, precision);
  const next = digits.charCodeAt(precision) - 48;
  const beyond = /[1-9]/.test(digits.slice(precision + 1));
  const last = head.charCodeAt(precision - 1) - 48;
  const up = next > 5 || (next === 5 && (beyond || last % 2 === 1));
  if (!up) return { digits: head.replace(/0+$/, '') || '0', exponent };
  const bumped = (BigInt(head) + 1n).toString();
  // 99…9 + 1 gains a digit: the exponent grows by one.
  return bumped.length > precision
    ? { digits: bumped.slice(0, precision).replace(/0+$/, ''), exponent: exponent + 1 }
    : { digits: bumped.replace(/0+$/, ''), exponent };
}

/**
 * Shortest digits that read back as float32 `abs` (> 0), the nearest such with ties to even: what
 * numpy's Dragon4 prints in its shortest ("unique") mode.
 */
function shortestFloat32Digits(abs: number): { digits: string; exponent: number } {
  const exact = exactFloat32Decimal(abs);
  for (let precision = 1; precision < 9; precision++) {
    const r = roundDigits(exact.digits, exact.exponent, precision);
    const text = `${r.digits[0]}.${r.digits.slice(1) || '0'}e${r.exponent}`;
    if (Math.fround(Number(text)) === abs) return r;
  }
  // Nine significant digits always identify a float32.
  return roundDigits(exact.digits, exact.exponent, 9);
}

/** `value` rounded to float32 and written as numpy writes `str(np.float32(value))`. */
export function numpyFloat32Text(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  const f = Math.fround(value);
  if (f === 0) return Object.is(f, -0) ? '-0.0' : '0.0';
  if (!Number.isFinite(f)) return f > 0 ? 'inf' : '-inf';
  const sign = f < 0 ? '-' : '';
  const abs = Math.abs(f);
  const { digits, exponent } = shortestFloat32Digits(abs);
  // numpy switches float32 scalars to scientific notation below 1e-4 and from 1e6 up.
  if (abs >= 1e-4 && abs < 1e6) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
    const fraction = digits.slice(exponent + 1);
    return `${sign}${whole}.${fraction === '' ? '0' : fraction}`;
  }
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const expSign = exponent < 0 ? '-' : '+';
  return `${sign}${mantissa}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
}
