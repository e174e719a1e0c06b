/**
 * Weights that onnxruntime's x86 CPU int8 kernels multiply without saturating.
 *
 * At its default graph optimization ('all') onnxruntime's CPU provider fuses a Conv, MatMul or Gemm with
 * its Q/DQ pairs into QLinearConv / QLinearMatMul / QGemm. On x86 it first turns int8 activations into
 * uint8 (its QDQS8ToU8 transformer: session.qdqisint8allowed is off there), so an 8-bit model with int8
 * weights runs MLAS's U8S8 GEMM. On CPUs without VNNI (AVX2, AVX-512 without VNNI) that GEMM multiplies
 * with vpmaddubsw, which adds two adjacent u8 × s8 products in a signed 16-bit lane and saturates: with an
 * activation code of 255, a pair of weight codes whose same-sign magnitudes add up to more than 128
 * overflows (255 × 129 > 32767). onnxruntime's own precise mode (session.x64quantprecision, off by default)
 * uses the same bound: weights within [-64, 64] are left alone.
 *
 * The check here is per output channel and does not depend on how MLAS packs the reduction axis: a channel
 * can overflow when its two largest positive codes, or its two largest negative magnitudes, add up to more
 * than 128. Only such channels get 7-bit codes (reduce range); channels and layers that cannot overflow keep
 * their 8-bit weights. Layers that do not run in a U8S8 kernel are left alone: depthwise convolutions
 * (MLAS's depthwise kernel accumulates in 32 bits), nodes whose input or weight is wider than 8 bits (16-bit
 * parts stay float DequantizeLinear → op), and uint8 weights (U8U8 kernel).
 */
import type { NodeProto } from '../onnx/model.ts';
import type { QuantType } from './numeric.ts';
import { QUANT_TYPES } from './numeric.ts';
import { axisLayout } from './qparams.ts';
import { intAttr } from './rules/types.ts';

/** The largest same-sign pair sum of weight codes a u8 × s8 pair product holds in 16 bits (255 × 128 ≤ 32767). */
export const SAFE_PAIR_MAGNITUDE = 128;

/** Op types onnxruntime's CPU provider fuses with their Q/DQ into U8S8 GEMM kernels (QLinearConv, QLinearMatMul, QGemm). */
const GEMM_OPS = new Set(['Conv', 'MatMul', 'Gemm']);

/**
 * Whether onnxruntime's x86 CPU provider runs this node as a U8S8 GEMM whose pair products can saturate:
 * a Conv (not depthwise), MatMul or Gemm with an 8-bit activation input and int8 weights.
 */
export function runsInSaturatingKernel(
  node: NodeProto,
  weightDims: readonly number[],
  activationType: QuantType | undefined,
  weightType: QuantType,
): boolean {
  if (!GEMM_OPS.has(node.op_type ?? '')) return false;
  if (activationType === undefined || QUANT_TYPES[activationType].bits !== 8) return false;
  if (weightType !== 'int8') return false;
  if (node.op_type === 'Conv') {
    const group = intAttr(node, 'group', 1);
    // Depthwise: one input channel per group (weight [M, 1, ...]); MLAS runs it apart, in 32 bits.
    if (group > 1 && weightDims[1] === 1) return false;
  }
  return true;
}

/**
 * Per output channel along `axis` (the whole tensor as one channel when undefined or a scalar): whether two of its codes
 * of the same sign can add up past SAFE_PAIR_MAGNITUDE, so that some pairing of them in the kernel's reduction
 * could saturate. Codes are the written ones (the kernel multiplies raw codes and corrects zero points apart).
 */
export function overflowingChannels(
  codes: ArrayLike<number>,
  dims: readonly number[],
  axis: number | undefined,
): boolean[] {
  const { channels, inner, outer } =
    axis === undefined || dims.length === 0
      ? { channels: 1, inner: codes.length, outer: 1 }
      : axisLayout(codes.length, dims, axis);
  const result: boolean[] = [];
  for (let c = 0; c < channels; c++) {
    // The two largest positive codes (p1 ≥ p2 ≥ 0) and negative magnitudes (n1 ≥ n2 ≥ 0) seen so far. Their sums only
    // grow, so the channel is settled the moment one passes the bound: the rest of it is not read (on ISNet's 44 M
    // weights most channels settle early). A code above p2 is positive, one below −n2 negative.
    let p1 = 0,
      p2 = 0,
      n1 = 0,
      n2 = 0;
    let overflows = false;
    channel: for (let o = 0; o < outer; o++) {
      const base = (o * channels + c) * inner;
      for (let j = base; j < base + inner; j++) {
        const v = codes[j];
        if (v > p2) {
          if (v > p1) {
            p2 = p1;
            p1 = v;
          } else p2 = v;
          if (p1 + p2 > SAFE_PAIR_MAGNITUDE) {
            overflows = true;
            break channel;
          }
        } else if (-v > n2) {
          const m = -v;
          if (m > n1) {
            n2 = n1;
            n1 = m;
          } else n2 = m;
          if (n1 + n2 > SAFE_PAIR_MAGNITUDE) {
            overflows = true;
            break channel;
          }
        }
      }
    }
    result.push(overflows);
  }
  return result;
}
