/**
 * What the error-minimising searches (MinMSE, power-of-two MinMSE, layer-wise percentile) need from
 * quantization: the scale and zero point a candidate range gives, and the error of quantize-then-
 * dequantize summed over weighted sample points.
 *
 * The float scale rule here stays private to calibration on purpose: it reproduces Quark's
 * `quant_utils.compute_scale_zp` exactly as the searches see it (float64 range, no float32 rounding of the
 * bounds, no uint8 zero-point move), so that the searches pick what Quark picks; `src/core/quantize/qparams.ts`
 * owns the scales written into models. The integer range (`integerRange`, Quark rule) and `scale2pos`
 * (`powerOfTwoExponent`) are the same in both and come from there. Rounding comes from `quantize/numeric.ts`.
 */

import { ROUND_TIES_EVEN_MAGIC, type QuantType, roundHalfToEven } from '../../quantize/numeric.ts';
import { integerRange, powerOfTwoExponent } from '../../quantize/qparams.ts';

/** Smallest normal float32 (numpy `finfo(float32).tiny`): scales below it become 1. */
const FLOAT32_TINY = 1.1754943508222875e-38;

export interface IntegerBounds {
  readonly qmin: number;
  readonly qmax: number;
}

export interface ScaleZeroPoint {
  /** Real units per integer step, a float32 value. */
  readonly scale: number;
  readonly zeroPoint: number;
}

/**
 * Quark `get_qmin_qmax_for_qType(qType, symmetric)`: the type's range, narrowed to ±max for symmetric
 * int8 / int16 / int32 (its `symmetric_ranges`; int4 and the unsigned types keep their full range).
 */
export function searchBounds(type: QuantType, symmetric: boolean): IntegerBounds {
  const [qmin, qmax] = integerRange(type, { symmetric, rule: 'quark' });
  return { qmin, qmax };
}

/**
 * Quark `compute_scale_zp` with a float scale: the range is widened to include 0 and, when symmetric,
 * made [-a, a]; scale = (rmax − rmin) / (qmax − qmin) in float64, zero point = round(qmin − rmin / scale)
 * (ties to even, before the scale is rounded to float32); a scale under float32's smallest normal becomes
 * 1 with zero point 0.
 */
export function floatScaleZeroPoint(
  rmin: number,
  rmax: number,
  bounds: IntegerBounds,
  symmetric: boolean,
): ScaleZeroPoint {
  let lo = Math.min(rmin, 0);
  let hi = Math.max(rmax, 0);
  if (symmetric) {
    const a = Math.max(Math.abs(lo), Math.abs(hi));
    lo = -a;
    hi = a;
  }
  const scale = (hi - lo) / (bounds.qmax - bounds.qmin);
  if (!(scale >= FLOAT32_TINY)) return { scale: 1, zeroPoint: 0 };
  return { scale: Math.fround(scale), zeroPoint: roundHalfToEven(bounds.qmin - lo / scale) + 0 };
}

/** Quark `scale2pos`: the fixed-point position round(−log2 scale), ties to even, scale clamped to 2^±127. */
export const scaleToPosition: (scale: number) => number = powerOfTwoExponent;

/** Quark `pos2scale`: 2^−pos. */
export function positionToScale(pos: number): number {
  return Math.pow(2, -pos);
}

/**
 * Quark `compute_scale_zp` for a `PowerOfTwoMethod`: the float scale rounded to the nearest power of two
 * in the log domain, and the zero point recomputed for it (rmin' = min((qmin − zp)·scale', 0),
 * zp' = round(qmin − rmin' / scale')).
 */
export function powerOfTwoScaleZeroPoint(
  rmin: number,
  rmax: number,
  bounds: IntegerBounds,
  symmetric: boolean,
): ScaleZeroPoint {
  const f = floatScaleZeroPoint(rmin, rmax, bounds, symmetric);
  const scale = positionToScale(scaleToPosition(f.scale));
  const lo = Math.min(Math.fround((bounds.qmin - f.zeroPoint) * scale), 0);
  return { scale, zeroPoint: roundHalfToEven(bounds.qmin - lo / scale) + 0 };
}

/**
 * Σ w·(x − dq(q(x)))² over the points, with q(x) = clamp(round(x / scale) + zp, qmin, qmax) (the division
 * in float32, as ONNX and Quark's `quantize_nparray` do) and dq(q) = (q − zp)·scale.
 *
 * Computed as d = x − c·scale with c = round(clamp(x / scale, qmin − zp, qmax − zp)): clamping to integer bounds
 * commutes with rounding, and the rounding is the branch-free ties-to-even of `ROUND_TIES_EVEN_MAGIC`, so the loop
 * has no call and no branch (the same sum, term for term). With `stopAt`, the sum stops as soon as it reaches that
 * value (a sum of squares only grows): a search that keeps the first candidate with a smaller error than the best so
 * far passes the best error there and gets the same choice, the rejected candidates' sums cut short.
 */
export function qdqSquaredError(
  pts: Float64Array,
  wts: Float64Array,
  s: ScaleZeroPoint,
  bounds: IntegerBounds,
  stopAt = Infinity,
): number {
  const { scale, zeroPoint: zp } = s;
  const lo = bounds.qmin - zp;
  const hi = bounds.qmax - zp;
  const n = pts.length;
  let sum = 0;
  // Blocks of 64 points between checks of the bound, so that the check stays out of the inner loop.
  for (let start = 0; start < n && sum < stopAt; start += 64) {
    const end = start + 64 < n ? start + 64 : n;
    for (let i = start; i < end; i++) {
      const x = pts[i];
      let v = Math.fround(x / scale);
      v = v < lo ? lo : v > hi ? hi : v;
      const c = v + ROUND_TIES_EVEN_MAGIC - ROUND_TIES_EVEN_MAGIC;
      const d = x - c * scale;
      sum += wts[i] * d * d;
    }
  }
  return sum;
}
