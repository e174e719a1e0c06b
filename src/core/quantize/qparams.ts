/**
 * Quantization parameters: from a real range [rmin, rmax] (per tensor or per channel) to a scale and a zero point.
 *
 * Two rules live here, each reproducing its reference bit for bit:
 *  - float scales, as ONNX Runtime computes them (quant_utils.py: get_qmin_qmax_for_qType, compute_scale_zp,
 *    compute_data_quant_params) — used by the U8S8/S8S8/A8W8/A16W8 presets;
 *  - power-of-two scales, as AMD Quark computes them (quark/onnx/quantization/quant_utils.py: compute_scale_zp
 *    with a PowerOfTwoMethod, scale2pos, pos2scale) — used by XINT8/VINT8.
 * Everything is a pure function of numbers and typed arrays. This module does not calibrate (choosing rmin and
 * rmax is the calibrators' job), does not produce codes (quantizeTensor.ts does) and knows nothing of graphs.
 * A weight's parameters, per tensor or per channel (each channel from its own range, channelRanges here, then
 * the MinMSE search for power-of-two scales), are chosen in one place: weights.ts, quantizeWeight.
 */

import { QUANT_TYPES, roundHalfToEven, saturate, type QuantType } from './numeric.ts';

/** Scale and zero point of one tensor or one channel. */
export interface QParams {
  /** Real units per integer step; always a float32 value. */
  readonly scale: number;
  /** The integer code that represents real 0. */
  readonly zeroPoint: number;
}

/** Options shared by both rules. */
export interface QParamOptions {
  /** Make the range ±max(|rmin|, |rmax|) and use the restricted symmetric integer range. Default false. */
  readonly symmetric?: boolean;
  /** Use the 7-bit-like reduced integer range (ORT reduce_range). Default false. */
  readonly reduceRange?: boolean;
  /** ORT's MinimumRealRange: widen rmax so that rmax − rmin is at least this. Float rule only. */
  readonly minRealRange?: number | null;
}

/** The scale kind a tensor uses; mirrors QuantConfig.scaleType. */
export type ScaleKind = 'float32' | 'powerOfTwo';

/** Which reference's table of restricted ranges to read. */
export type RangeRule = 'ort' | 'quark';

const FLT_MIN_NORMAL = 1.1754943508222875e-38; // numpy.finfo(float32).tiny
const FLT_MAX = 3.4028234663852886e38;

// Restricted ranges used when `symmetric` is set. ORT (since microsoft/onnxruntime PR #22020) also restricts the
// unsigned types, which makes the symmetric uint8 zero point 127 (issue #25823); Quark keeps their full range and
// moves a symmetric uint8 zero point of 127 to 128. Neither restricts 4-bit types.
const SYMMETRIC_RANGES: Record<RangeRule, Partial<Record<QuantType, readonly [number, number]>>> = {
  ort: {
    uint8: [0, 254],
    int8: [-127, 127],
    uint16: [0, 65534],
    int16: [-32767, 32767],
    int32: [-2147483647, 2147483647],
  },
  quark: { int8: [-127, 127], int16: [-32767, 32767], int32: [-2147483647, 2147483647] },
};

// reduce_range ranges; identical in both references (int32 only in Quark's table).
const REDUCED_RANGES: Record<QuantType, readonly [number, number]> = {
  uint4: [0, 7],
  int4: [-4, 3],
  uint8: [0, 127],
  int8: [-64, 64],
  uint16: [0, 32767],
  int16: [-16384, 16384],
  int32: [-1073741824, 1073741824],
};

/** [qmin, qmax] the parameters are computed for (get_qmin_qmax_for_qType: reduce_range wins over symmetric). */
export function integerRange(
  type: QuantType,
  opts: { symmetric?: boolean; reduceRange?: boolean; rule?: RangeRule } = {},
): readonly [number, number] {
  if (opts.reduceRange) return REDUCED_RANGES[type];
  const restricted = opts.symmetric ? SYMMETRIC_RANGES[opts.rule ?? 'ort'][type] : undefined;
  return restricted ?? [QUANT_TYPES[type].min, QUANT_TYPES[type].max];
}

/** Widen a float32 range to contain 0, clamp infinities (as Quark does) and optionally symmetrize it. */
function prepareRange(rmin: number, rmax: number, symmetric: boolean, minRealRange?: number | null): [number, number] {
  if (Number.isNaN(rmin) || Number.isNaN(rmax)) throw new RangeError(`range [${rmin}, ${rmax}] contains NaN`);
  let lo = Math.min(Math.fround(rmin), 0);
  let hi = Math.max(Math.fround(rmax), 0);
  // Quark (quant_utils.compute_scale_zp) replaces ±inf by ±FLT_MAX/2 so that rmax − rmin stays finite.
  if (lo < -FLT_MAX / 2) lo = Math.fround(-FLT_MAX / 2);
  if (hi > FLT_MAX / 2) hi = Math.fround(FLT_MAX / 2);
  if (minRealRange != null) hi = Math.max(hi, Math.fround(lo + Math.fround(minRealRange)));
  if (symmetric) {
    const absmax = Math.max(-lo, hi);
    return [-absmax, absmax];
  }
  return [lo, hi];
}

/**
 * Float scale and zero point by ONNX Runtime's rule (quant_utils.compute_scale_zp). Scale in real units per
 * step (float32), zero point an integer code of `type`. A range narrower than float32's smallest normal number
 * gives scale 1, zero point 0.
 */
export function computeScaleZeroPoint(rmin: number, rmax: number, type: QuantType, opts: QParamOptions = {}): QParams {
  const symmetric = opts.symmetric ?? false;
  const [qmin, qmax] = integerRange(type, { symmetric, reduceRange: opts.reduceRange, rule: 'ort' });
  const [lo, hi] = prepareRange(rmin, rmax, symmetric, opts.minRealRange);
  // numpy subtracts the float32 bounds in float32, then divides in float64.
  const scale = Math.fround(hi - lo) / (qmax - qmin);
  if (!(scale >= FLT_MIN_NORMAL)) return { scale: 1, zeroPoint: 0 };
  // Symmetric: ORT takes the midpoint so every channel gets the same zero point (0, 127, 0, 32767, 0).
  const zp = symmetric ? roundHalfToEven((qmin + qmax) / 2) : roundHalfToEven(qmin - lo / scale);
  return { scale: Math.fround(scale), zeroPoint: saturate(zp, type) + 0 };
}

/** Quark's scale2pos: the exponent n of the power of two 2^-n nearest to `scale` in the log domain (np.rint). */
export function powerOfTwoExponent(scale: number): number {
  const clamped = Math.min(Math.max(scale, 2 ** -127), 2 ** 127);
  return roundHalfToEven(-Math.log2(clamped)) + 0;
}

/**
 * Exponent offsets Quark's PowerOfTwoMethod.MinMSE tries around powerOfTwoExponent(scale)
 * (quant_utils.quantize_data: pos2scale(scale2pos(scale) + i − 1) for i in range(pos_range = 5)), i.e. scales
 * 2×, 1×, ½, ¼ and ⅛ of the nearest power of two.
 */
export const POF2_MINMSE_EXPONENT_OFFSETS: readonly number[] = [-1, 0, 1, 2, 3];

/**
 * Power-of-two scale and zero point by Quark's rule (quark/onnx/quantization/quant_utils.compute_scale_zp with a
 * PowerOfTwoMethod). Scale = 2^-exponent (float32); the exponent is the float scale's log2 rounded to nearest,
 * not up, so the extreme values of the range may saturate (Quark's "NonOverflow" does not guarantee it). The
 * zero point is computed with the float scale and kept when the scale snaps; a symmetric uint8 zero point of 127
 * becomes 128 ("to meet hardware's requirements" in Quark).
 */
export function computePowerOfTwoScaleZeroPoint(
  rmin: number,
  rmax: number,
  type: QuantType,
  opts: Omit<QParamOptions, 'minRealRange'> = {},
): QParams & { readonly exponent: number } {
  const symmetric = opts.symmetric ?? false;
  const [qmin, qmax] = integerRange(type, { symmetric, reduceRange: opts.reduceRange, rule: 'quark' });
  const [lo, hi] = prepareRange(rmin, rmax, symmetric);
  const floatScale = Math.fround(hi - lo) / (qmax - qmin);
  let zeroPoint = 0;
  let scale32 = 1;
  if (floatScale >= FLT_MIN_NORMAL) {
    zeroPoint = saturate(roundHalfToEven(qmin - lo / floatScale), type);
    scale32 = Math.fround(floatScale);
  }
  const exponent = powerOfTwoExponent(scale32);
  const scale = Math.fround(2 ** -exponent);
  // Quark recomputes the zero point from new_rmin = min((qmin − zp)·2^-n, 0); that gives back zp exactly, so
  // only the uint8 adjustment remains.
  if (symmetric && type === 'uint8' && zeroPoint === 127) zeroPoint = 128;
  return { scale, zeroPoint: zeroPoint + 0, exponent };
}

/** Dispatch on the scale kind: ORT's float rule or Quark's power-of-two rule. */
export function computeQParams(
  rmin: number,
  rmax: number,
  type: QuantType,
  opts: QParamOptions & { scaleType?: ScaleKind } = {},
): QParams {
  if (opts.scaleType === 'powerOfTwo') {
    const { scale, zeroPoint } = computePowerOfTwoScaleZeroPoint(rmin, rmax, type, opts);
    return { scale, zeroPoint };
  }
  return computeScaleZeroPoint(rmin, rmax, type, opts);
}

function minMax(data: ArrayLike<number>, start: number, count: number): [number, number] {
  // An empty tensor has range [0, 0] (compute_data_quant_params: `data.min() if len(data) else 0.0`).
  let lo = count > 0 ? Infinity : 0;
  let hi = count > 0 ? -Infinity : 0;
  for (let i = start; i < start + count; i++) {
    const v = data[i];
    if (Number.isNaN(v)) return [NaN, NaN];
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

/** Minimum and maximum of a whole tensor, in its own units; NaN if any element is NaN; [0, 0] when empty. */
export function tensorRange(data: ArrayLike<number>): { min: number; max: number } {
  const [min, max] = minMax(data, 0, data.length);
  return { min, max };
}

/** How a row-major tensor's elements group by channel along one axis. */
export interface AxisLayout {
  readonly channels: number;
  /** Elements after the axis (the stride between consecutive channels). */
  readonly inner: number;
  readonly outer: number;
}

/** Channel count and strides of `axis` (negative counts from the end) for a row-major tensor of `dims`. */
export function axisLayout(length: number, dims: readonly number[], axis: number): AxisLayout {
  const rank = dims.length;
  const a = axis < 0 ? axis + rank : axis; // normalize_axis
  if (!Number.isInteger(a) || a < 0 || a >= rank) {
    throw new RangeError(`axis ${axis} is out of bounds for rank ${rank}`);
  }
  const total = dims.reduce((p, d) => p * d, 1);
  if (total !== length) throw new RangeError(`dims [${dims.join(', ')}] hold ${total} elements, data has ${length}`);
  const inner = dims.slice(a + 1).reduce((p, d) => p * d, 1);
  return { channels: dims[a], inner, outer: total / (dims[a] * inner || 1) };
}

/** Per-channel minima and maxima along `axis` of a row-major tensor, in its own units. */
export function channelRanges(
  data: ArrayLike<number>,
  dims: readonly number[],
  axis: number,
): { mins: Float32Array; maxs: Float32Array } {
  const { channels, inner, outer } = axisLayout(data.length, dims, axis);
  const mins = new Float32Array(channels);
  const maxs = new Float32Array(channels);
  for (let c = 0; c < channels; c++) {
    // The channel's elements come in `outer` runs of `inner` contiguous values.
    let lo = outer * inner > 0 ? Infinity : 0;
    let hi = outer * inner > 0 ? -Infinity : 0;
    for (let o = 0; o < outer; o++) {
      const [l, h] = minMax(data, (o * channels + c) * inner, inner);
      lo = Number.isNaN(l) || Number.isNaN(lo) ? NaN : Math.min(lo, l);
      hi = Number.isNaN(h) || Number.isNaN(hi) ? NaN : Math.max(hi, h);
    }
    mins[c] = lo;
    maxs[c] = hi;
  }
  return { mins, maxs };
}
