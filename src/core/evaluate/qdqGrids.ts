/**
 * The quantization grid each activation of a QDQ model was given, read back from the model itself:
 * the QuantizeLinear's scale, zero point and integer type, and the real range that grid covers.
 *
 * A report comparing two model files has no calibration ranges at hand, yet "what range did this
 * tensor get" is the first question about a bad layer. The grid answers it exactly: the values a
 * DequantizeLinear can produce run from (qmin − zp)·scale to (qmax − zp)·scale, which is the
 * calibrated range after the quantizer's adjustments (symmetry, power-of-two rounding, zero kept
 * representable). Per-tensor grids only; per-axis ones (weights) are not activations. Must not
 * change the model.
 */

import { buildGraphIndex, weightOf } from '../onnx/graphIndex.ts';
import { readTensorAsFloat32, readTensor } from '../onnx/tensorData.ts';
import { isDefaultDomain, type ModelProto } from '../onnx/model.ts';
import { QUANT_TYPES, type QuantType } from '../quantize/numeric.ts';

export interface QdqGrid {
  readonly type: QuantType;
  readonly scale: number;
  readonly zeroPoint: number;
  /** Smallest and largest value the grid represents, in the tensor's units. */
  readonly min: number;
  readonly max: number;
}

const TYPE_OF_ONNX = new Map<number, QuantType>(
  Object.entries(QUANT_TYPES).map(([k, v]) => [v.onnxType, k as QuantType]),
);

/** Per-tensor grids of a QDQ model, by the name of the tensor each QuantizeLinear reads. */
export function qdqGrids(model: ModelProto): Map<string, QdqGrid> {
  const index = buildGraphIndex(model.graph!);
  const grids = new Map<string, QdqGrid>();
  for (const n of index.nodes) {
    if (n.op_type !== 'QuantizeLinear' || !(isDefaultDomain(n.domain) || n.domain === 'com.microsoft')) continue;
    const [x, scaleName, zpName] = n.input;
    if (!x || grids.has(x)) continue;
    const scaleTensor = scaleName ? weightOf(index, scaleName) : undefined;
    if (!scaleTensor) continue;
    const scales = readTensorAsFloat32(scaleTensor);
    if (scales.length !== 1) continue;
    const zpTensor = zpName ? weightOf(index, zpName) : undefined;
    const type = zpTensor ? TYPE_OF_ONNX.get(zpTensor.data_type ?? 0) : 'uint8';
    if (!type) continue;
    const zeroPoint = zpTensor ? Number(readTensor(zpTensor)[0]) : 0;
    const scale = scales[0];
    const info = QUANT_TYPES[type];
    grids.set(x, { type, scale, zeroPoint, min: (info.min - zeroPoint) * scale, max: (info.max - zeroPoint) * scale });
  }
  return grids;
}
