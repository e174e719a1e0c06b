/**
 * Whole tensors to integer codes, once their parameters are known: weights (per tensor or per channel) through
 * ONNX QuantizeLinear's arithmetic, and biases to int32 the way ONNX Runtime's QDQ quantizer does it.
 *
 * Exists apart from qparams.ts because choosing parameters and applying them are separate questions; this module
 * never chooses a scale (except ORT's int32-bias safeguard, which enlarges weight scales) and never packs 4-bit
 * codes into bytes (that is the tensor encoder's job).
 */

import { quantizeRun, roundHalfToEven, type QuantType } from './numeric.ts';
import { axisLayout } from './qparams.ts';

/** The typed array that holds codes of each type; 4-bit codes stay unpacked, one per byte. */
export type CodeArray = Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array;

function allocateCodes(type: QuantType, length: number): CodeArray {
  switch (type) {
    case 'int4':
    case 'int8':
      return new Int8Array(length);
    case 'uint4':
    case 'uint8':
      return new Uint8Array(length);
    case 'int16':
      return new Int16Array(length);
    case 'uint16':
      return new Uint16Array(length);
    case 'int32':
      return new Int32Array(length);
  }
}

const asList = (v: ArrayLike<number> | number): ArrayLike<number> => (typeof v === 'number' ? [v] : v);

/**
 * QuantizeLinear of a whole row-major tensor: integer codes of `type`. One scale/zero point quantizes the whole
 * tensor; several (one per channel) need `axis` and `dims`. 4-bit codes come back unpacked (Int8Array/Uint8Array).
 */
export function quantizeTensor(
  data: ArrayLike<number>,
  scales: ArrayLike<number> | number,
  zeroPoints: ArrayLike<number> | number,
  type: QuantType,
  axis?: number,
  dims?: readonly number[],
): CodeArray {
  const s = asList(scales);
  const z = asList(zeroPoints);
  if (s.length !== z.length) throw new RangeError(`${s.length} scales but ${z.length} zero points`);
  const out = allocateCodes(type, data.length);
  if (s.length === 1) {
    quantizeRun(data, out, 0, data.length, s[0], z[0], type);
    return out;
  }
  if (axis === undefined || dims === undefined) throw new RangeError(`${s.length} scales need an axis and dims`);
  const { channels, inner } = axisLayout(data.length, dims, axis);
  if (channels !== s.length) throw new RangeError(`axis has ${channels} channels but ${s.length} scales were given`);
  for (let start = 0, c = 0; start < data.length; start += inner, c = c + 1 === channels ? 0 : c + 1) {
    quantizeRun(data, out, start, start + inner, s[c], z[c], type);
  }
  return out;
}

/** Bias scales (real units per int32 step): float32(inputScale × weightScale[c]), one per weight scale. */
export function biasScales(inputScale: number, weightScales: ArrayLike<number>): Float32Array {
  const out = new Float32Array(weightScales.length);
  for (let c = 0; c < out.length; c++) out[c] = Math.fround(inputScale * weightScales[c]);
  return out;
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * Int32 bias codes with zero point 0 and scale inputScale × weightScale (per channel when `weightScales` has one
 * entry per bias element), as ORT's quantize_bias_static_impl: division in float64, round half to even, clip to
 * int32. ORT does not guard a zero scale there: ±b/0 saturates, and 0/0 (NaN, undefined in numpy's cast) is 0 here.
 */
export function quantizeBias(bias: ArrayLike<number>, inputScale: number, weightScales: ArrayLike<number>): Int32Array {
  const scales = biasScales(inputScale, weightScales);
  if (scales.length !== 1 && scales.length !== bias.length) {
    throw new RangeError(`${bias.length} bias values but ${scales.length} weight scales`);
  }
  const out = new Int32Array(bias.length);
  for (let i = 0; i < bias.length; i++) {
    const q = roundHalfToEven(Math.fround(bias[i]) / scales[scales.length === 1 ? 0 : i]);
    out[i] = Number.isNaN(q) ? 0 : q < INT32_MIN ? INT32_MIN : q > INT32_MAX ? INT32_MAX : q;
  }
  return out;
}

/**
 * Weight scales enlarged where inputScale × weightScale would be too small to hold the bias in int32, following
 * ORT's QDQ quantizer (_adjust_weight_scale_for_int32_bias; turned off by QDQDisableWeightAdjustForInt32Bias).
 * The smallest valid bias scale is 1.0001 × 2·|b|max / (2^32 − 2), |b|max over the whole bias (per-tensor) or per
 * element (per-channel). ORT applies it only to symmetric weights (zero points 0): the caller decides.
 */
export function adjustWeightScalesForInt32Bias(
  bias: ArrayLike<number>,
  inputScale: number,
  weightScales: ArrayLike<number>,
): Float32Array {
  const out = Float32Array.from(weightScales);
  const qrange = INT32_MAX - (INT32_MIN + 1);
  const grow = (c: number, absmax: number): void => {
    const smallestValid = (1.0001 * 2 * absmax) / qrange;
    const candidate = inputScale * out[c];
    if (candidate > 0 && candidate < smallestValid) out[c] = Math.fround(out[c] * (smallestValid / candidate));
  };
  if (out.length === 1) {
    let absmax = 0;
    for (let i = 0; i < bias.length; i++) absmax = Math.max(absmax, Math.abs(bias[i]));
    grow(0, absmax);
  } else {
    if (out.length !== bias.length) throw new RangeError(`${bias.length} bias values but ${out.length} weight scales`);
    for (let c = 0; c < out.length; c++) grow(c, Math.abs(bias[c]));
  }
  return out;
}
