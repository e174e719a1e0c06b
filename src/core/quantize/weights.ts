/**
 * Constant tensors to integer codes: weights per tensor or per output channel, biases as int32 from the
 * input and weight scales (or like a weight when Int32Bias is off, as Quark's NPU presets do), and
 * other constant operands per tensor. Power-of-two weights take, among Quark's candidate exponents
 * around the min/max one, the exponent with the least squared error (Quark's PowerOfTwoMethod.MinMSE).
 */
import type { TensorProto } from '../onnx/model.ts';
import { readTensorAsFloat32 } from '../onnx/tensorData.ts';
import type { QuantType } from './numeric.ts';
import { QUANT_TYPES, ROUND_TIES_EVEN_MAGIC } from './numeric.ts';
import {
  axisLayout,
  channelRanges,
  computeQParams,
  POF2_MINMSE_EXPONENT_OFFSETS,
  tensorRange,
  type ScaleKind,
} from './qparams.ts';
import { overflowingChannels } from './cpuKernelSafety.ts';
import {
  adjustWeightScalesForInt32Bias,
  biasScales,
  quantizeBias,
  quantizeTensor,
  type CodeArray,
} from './quantizeTensor.ts';

/** A constant as it will be written: codes, scales and zero points (one, or one per channel on `axis`). */
export interface QuantizedConstant {
  source: string;
  type: QuantType;
  dims: number[];
  codes: CodeArray;
  scales: Float32Array;
  /** Undefined for int32 biases, whose DequantizeLinear takes no zero point. */
  zeroPoints?: Int32Array;
  /** Set when per channel. */
  axis?: number;
}

export interface WeightOptions {
  type: QuantType;
  symmetric: boolean;
  scaleType: ScaleKind;
  reduceRange: boolean;
  /** Search power-of-two exponents for the least squared error (Quark's MinMSE), else min/max. */
  minMse: boolean;
}

/**
 * Whether the MinMSE exponent search runs: power-of-two scales without reduce range only (with float scales, or
 * reduce range, MinMSE's weights are MinMax's).
 */
function searchesMinMse(o: WeightOptions): boolean {
  return o.minMse && o.scaleType === 'powerOfTwo' && !o.reduceRange;
}

/** Elements of one channel: `outer` runs of `inner` contiguous values, `channels` runs apart (1, n, 1 for a whole tensor). */
interface ChannelSpan {
  channel: number;
  channels: number;
  inner: number;
  outer: number;
}

/**
 * Squared error of quantize → dequantize of `data[from..to)` at one scale, added to `err`. Same arithmetic as
 * quantizeValue/dequantizeValue (x / scale in float32, ties to even, saturation). For power-of-two scales of
 * normal magnitude, x / 2^-n is x · 2^n without rounding and so is code · 2^-n, so the float32 roundings are
 * no-ops and the loop multiplies instead; the clamp to integer bounds comes before the rounding, which gives the
 * same code and keeps the rounding trick (ROUND_TIES_EVEN_MAGIC) in range.
 */
function addError(
  data: Float32Array,
  from: number,
  to: number,
  scale: number,
  lo: number,
  hi: number,
  err: number,
): number {
  if (scale >= 2 ** -100 && scale <= 2 ** 100 && Math.log2(scale) % 1 === 0) {
    const inverse = 1 / scale;
    for (let j = from; j < to; j++) {
      const x = data[j];
      let v = x * inverse;
      v = v < lo ? lo : v > hi ? hi : v;
      const d = (v + ROUND_TIES_EVEN_MAGIC - ROUND_TIES_EVEN_MAGIC) * scale - x;
      err += d * d;
    }
    return err;
  }
  for (let j = from; j < to; j++) {
    const x = data[j];
    let v = Math.fround(x / scale);
    v = v < lo ? lo : v > hi ? hi : v;
    const d = Math.fround((v + ROUND_TIES_EVEN_MAGIC - ROUND_TIES_EVEN_MAGIC) * scale) - x;
    err += d * d;
  }
  return err;
}

/** Elements per step of the search, between checks of a candidate's running error against the best one's. */
const SEARCH_STEP = 8192;

/**
 * The candidate scale of least squared error over one channel (the first such in `scales` on ties), as if each
 * error were summed in full. A candidate stops being summed once its running sum exceeds the best complete sum
 * so far: a sum of squares only grows, so it could no longer win (or tie), and the choice is unchanged.
 */
function leastErrorScale(
  data: Float32Array,
  span: ChannelSpan,
  scales: readonly number[],
  zp: number,
  type: QuantType,
): number {
  const { min: qmin, max: qmax } = QUANT_TYPES[type];
  let best = -1;
  let bestErr = Infinity;
  for (let c = 0; c < scales.length; c++) {
    let err = 0;
    for (let o = 0; o < span.outer && err <= bestErr; o++) {
      const base = (o * span.channels + span.channel) * span.inner;
      const end = base + span.inner;
      for (let from = base; from < end && err <= bestErr; from += SEARCH_STEP) {
        err = addError(data, from, Math.min(end, from + SEARCH_STEP), scales[c], qmin - zp, qmax - zp, err);
      }
    }
    // Strictly less: an earlier candidate wins a tie; NaN never wins, as in a plain comparison of full sums.
    if (best < 0 || err < bestErr) {
      best = c;
      bestErr = err;
    }
  }
  return scales[best];
}

function paramsFor(
  data: Float32Array,
  lo: number,
  hi: number,
  span: ChannelSpan,
  o: WeightOptions,
): { scale: number; zeroPoint: number } {
  const base = computeQParams(lo, hi, o.type, {
    symmetric: o.symmetric,
    reduceRange: o.reduceRange,
    scaleType: o.scaleType,
  });
  // With reduce range the min/max exponent is kept: a finer candidate would clip in the search at the type's full
  // range and write codes past the reduced one (which is what keeps onnxruntime's x86 int8 kernels from saturating).
  if (!searchesMinMse(o)) return base;
  // Quark's candidates 2^-(n+offset) around the min/max exponent n: a positive offset is a finer scale.
  const candidates = [base.scale];
  for (const offset of POF2_MINMSE_EXPONENT_OFFSETS)
    if (offset !== 0) candidates.push(Math.fround(base.scale * 2 ** -offset));
  return { scale: leastErrorScale(data, span, candidates, base.zeroPoint, o.type), zeroPoint: base.zeroPoint };
}

/** Quantizes a weight per tensor (axis undefined) or per channel along `axis`. */
export function quantizeWeight(tensor: TensorProto, axis: number | undefined, o: WeightOptions): QuantizedConstant {
  const data = readTensorAsFloat32(tensor);
  const dims = tensor.dims.map(Number);
  if (axis === undefined || dims.length === 0) {
    const { min, max } = tensorRange(data);
    const p = paramsFor(data, min, max, { channel: 0, channels: 1, inner: data.length, outer: 1 }, o);
    const scales = Float32Array.of(p.scale);
    const zeroPoints = Int32Array.of(p.zeroPoint);
    return {
      source: tensor.name ?? '',
      type: o.type,
      dims,
      codes: quantizeTensor(data, scales, zeroPoints, o.type),
      scales,
      zeroPoints,
    };
  }
  const { mins, maxs } = channelRanges(data, dims, axis);
  const { channels, inner, outer } = axisLayout(data.length, dims, axis);
  const scales = new Float32Array(channels);
  const zeroPoints = new Int32Array(channels);
  for (let c = 0; c < channels; c++) {
    const p = paramsFor(data, mins[c], maxs[c], { channel: c, channels, inner, outer }, o);
    scales[c] = p.scale;
    zeroPoints[c] = p.zeroPoint;
  }
  return {
    source: tensor.name ?? '',
    type: o.type,
    dims,
    codes: quantizeTensor(data, scales, zeroPoints, o.type, axis, dims),
    scales,
    zeroPoints,
    axis,
  };
}

/**
 * Weight scales grown where input × weight scale could not hold the bias in int32 (ONNX Runtime's
 * QDQ quantizer does this for symmetric weights); the weight is then requantized with them.
 */
export function fitWeightToInt32Bias(
  weight: QuantizedConstant,
  tensor: TensorProto,
  bias: TensorProto,
  inputScale: number,
): QuantizedConstant {
  const b = readTensorAsFloat32(bias);
  const adjusted = adjustWeightScalesForInt32Bias(b, inputScale, weight.scales);
  if (adjusted.every((s, i) => s === weight.scales[i])) return weight;
  const data = readTensorAsFloat32(tensor);
  return {
    ...weight,
    scales: adjusted,
    codes: quantizeTensor(data, adjusted, weight.zeroPoints!, weight.type, weight.axis, weight.dims),
  };
}

/** An int32 bias: scale inputScale × weightScale (per channel when the weight is), zero point 0 and none written. */
export function quantizeInt32Bias(
  bias: TensorProto,
  inputScale: number,
  weightScales: Float32Array,
): QuantizedConstant {
  const data = readTensorAsFloat32(bias);
  const scales = biasScales(inputScale, weightScales);
  const perChannel = scales.length > 1;
  return {
    source: bias.name ?? '',
    type: 'int32',
    dims: bias.dims.map(Number),
    codes: quantizeBias(data, inputScale, weightScales),
    scales,
    axis: perChannel ? 0 : undefined,
  };
}

/**
 * A weight with 7-bit codes (reduce range) in the output channels whose 8-bit codes could saturate
 * onnxruntime's x86 U8S8 kernels (cpuKernelSafety.ts), the others as they were. Per tensor, the whole weight
 * is requantized when any channel along `outputAxis` could. Unchanged (the same object) when none could.
 */
export function saturationSafeWeight(
  weight: QuantizedConstant,
  tensor: TensorProto,
  outputAxis: number | undefined,
  o: WeightOptions,
): QuantizedConstant {
  const flagged = overflowingChannels(weight.codes, weight.dims, weight.axis ?? outputAxis);
  if (!flagged.includes(true)) return weight;
  const reduced = quantizeWeight(tensor, weight.axis, { ...o, reduceRange: true });
  if (weight.axis === undefined) return reduced;
  const scales = weight.scales.map((s, c) => (flagged[c] ? reduced.scales[c] : s));
  const zeroPoints = weight.zeroPoints!.map((z, c) => (flagged[c] ? reduced.zeroPoints![c] : z));
  const data = readTensorAsFloat32(tensor);
  return {
    ...weight,
    scales,
    zeroPoints,
    codes: quantizeTensor(data, scales, zeroPoints, weight.type, weight.axis, weight.dims),
  };
}

/**
 * Weights quantized once for every plan made on one prepared model (quantizeModel.ts PreparedQuantization): the
 * held-in choice plans its candidate methods on the same weights, and a weight's codes depend only on the tensor,
 * the axis and the options. Tensors are told apart by object, not name, so preparations of one model that carry the
 * same initializer objects (the held-in choice's written and judged forms of a float16 model) may share it. What it
 * hands out is shared: nothing may change the arrays of a constant it returned, nor the tensors it was given.
 */
export class QuantizedWeights {
  private readonly quantized = new WeakMap<TensorProto, Map<string, QuantizedConstant>>();
  private readonly overflow = new WeakMap<CodeArray, Map<string, boolean[]>>();

  /** quantizeWeight's result for this tensor object of a prepared graph, axis and options (MinMSE where it searches). */
  quantize(tensor: TensorProto, axis: number | undefined, o: WeightOptions): QuantizedConstant {
    const key = `${axis ?? 't'}|${o.type}|${o.symmetric}|${o.scaleType}|${o.reduceRange}|${searchesMinMse(o)}`;
    let byOptions = this.quantized.get(tensor);
    if (!byOptions) this.quantized.set(tensor, (byOptions = new Map()));
    let q = byOptions.get(key);
    if (!q) byOptions.set(key, (q = quantizeWeight(tensor, axis, o)));
    return q;
  }

  /** overflowingChannels of codes handed out here or elsewhere, counted once per array, dims and axis. */
  overflowingChannels(codes: CodeArray, dims: readonly number[], axis: number | undefined): boolean[] {
    let byLayout = this.overflow.get(codes);
    if (!byLayout) this.overflow.set(codes, (byLayout = new Map()));
    const key = `${dims.join('x')}|${axis ?? 't'}`;
    let flags = byLayout.get(key);
    if (!flags) byLayout.set(key, (flags = overflowingChannels(codes, dims, axis)));
    return flags;
  }
}
