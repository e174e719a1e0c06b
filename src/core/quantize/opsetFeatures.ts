/**
 * Opset-dependent Q/DQ behaviour in one table (docs/ARCHITECTURE.md, principle 4): which ai.onnx opset a QuantizeLinear /
 * DequantizeLinear of a given integer type needs, per tensor and per axis, and whether ONNX Runtime's
 * `com.microsoft` contrib Q/DQ (domain opset 1) can serve instead of raising the model's opset.
 *
 * The builder asks `qdqRequirement` instead of scattering `if (opset >= 13)`. This module only answers; it never
 * edits a model or decides whether raising the opset is safe for the other operators.
 *
 * Sources: the ONNX operator changelog (QuantizeLinear/DequantizeLinear-10: int8/uint8 with scalar scale, and
 * int32 input for DequantizeLinear; -13: `axis` and 1-D per-axis scales; -21: int16/uint16/int4/uint4 and blocked
 * scales); ONNX Runtime's QDQ quantizer (qdq_quantizer.py), which below opset 21 moves 16-bit and 4-bit Q/DQ to
 * `com.microsoft`; docs/NOTES.md: int16 Q/DQ at ai.onnx opset 13 is rejected by onnxruntime.
 */

import type { QuantType } from './numeric.ts';

export const MS_DOMAIN = 'com.microsoft';
/** The version of the com.microsoft domain to import for its QuantizeLinear/DequantizeLinear. */
export const MS_QDQ_OPSET = 1;

/** Minimum ai.onnx opsets for one integer type; `null` where the operator does not produce that type. */
export interface QdqOpsetRow {
  readonly quantize: { readonly perTensor: number; readonly perAxis: number } | null;
  readonly dequantize: { readonly perTensor: number; readonly perAxis: number };
  /** ORT's com.microsoft QuantizeLinear/DequantizeLinear accept this type (at any ai.onnx opset). */
  readonly msDomain: boolean;
}

export const QDQ_OPSET_TABLE: Readonly<Record<QuantType, QdqOpsetRow>> = {
  uint8: { quantize: { perTensor: 10, perAxis: 13 }, dequantize: { perTensor: 10, perAxis: 13 }, msDomain: true },
  int8: { quantize: { perTensor: 10, perAxis: 13 }, dequantize: { perTensor: 10, perAxis: 13 }, msDomain: true },
  uint16: { quantize: { perTensor: 21, perAxis: 21 }, dequantize: { perTensor: 21, perAxis: 21 }, msDomain: true },
  int16: { quantize: { perTensor: 21, perAxis: 21 }, dequantize: { perTensor: 21, perAxis: 21 }, msDomain: true },
  uint4: { quantize: { perTensor: 21, perAxis: 21 }, dequantize: { perTensor: 21, perAxis: 21 }, msDomain: true },
  int4: { quantize: { perTensor: 21, perAxis: 21 }, dequantize: { perTensor: 21, perAxis: 21 }, msDomain: true },
  // Only DequantizeLinear reads int32 (biases); ORT writes its zero point as 0 or leaves it out.
  int32: { quantize: null, dequantize: { perTensor: 10, perAxis: 13 }, msDomain: true },
};

/** Below this ai.onnx opset a type is only reachable through com.microsoft (ORT's rule: 16- and 4-bit types). */
const WIDE_TYPE_OPSET = 21;

export interface QdqRequirement {
  /** Smallest ai.onnx opset whose QuantizeLinear/DequantizeLinear handle every listed type. */
  readonly minOpset: number;
  /**
   * True when com.microsoft Q/DQ can stand in for raising the ai.onnx opset to `minOpset`: some type needs
   * opset 21 (16-bit or 4-bit) and the contrib ops accept all of them. The other operators keep their opset.
   */
  readonly msDomainAlternative: boolean;
}

/** What Q/DQ nodes carrying `types` (per axis or per tensor) require of the model's opset imports. */
export function qdqRequirement(types: readonly QuantType[], perAxis: boolean): QdqRequirement {
  let minOpset = 10;
  let msAll = true;
  for (const t of types) {
    const row = QDQ_OPSET_TABLE[t];
    const dq = perAxis ? row.dequantize.perAxis : row.dequantize.perTensor;
    const q = row.quantize ? (perAxis ? row.quantize.perAxis : row.quantize.perTensor) : dq;
    minOpset = Math.max(minOpset, q, dq);
    msAll &&= row.msDomain;
  }
  return { minOpset, msDomainAlternative: msAll && minOpset >= WIDE_TYPE_OPSET };
}

/** True when a model importing ai.onnx `opset` can hold Q/DQ for `types` without any change. */
export function opsetSupportsQdq(opset: number, types: readonly QuantType[], perAxis: boolean): boolean {
  return opset >= qdqRequirement(types, perAxis).minOpset;
}
