/**
 * A one-op Q/DQ model built in code whose int8 products saturate on a kernel that adds u8 × s8 pairs in 16 bits
 * (x86 vpmaddubsw without VNNI, core/quantize/cpuKernelSafety.ts), with the outputs both arithmetics give: the exact
 * one (32-bit sums, what DequantizeLinear → float op → QuantizeLinear computes) and the saturating one.
 *
 * Input codes up to 255 (uint8) or 127 (int8, which onnxruntime's x86 kernels shift to uint8 by 128) meet weight
 * codes of one value per output channel, so that every pairing of the reduction axis gives the same pair sums:
 * 127, 96 and -127 overflow 16 bits beside 255 (2 × 255 × 127 = 64770), 64 and -64 do not. All scales are powers of
 * two, so both arithmetics are exact in float32 and a code that differs is the saturation, never rounding.
 */
import {
  DataType,
  encode,
  intsAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
} from '../../src/core/onnx/index.ts';

export type SaturatingOp = 'MatMul' | 'Conv';
export type ActivationCodes = 'uint8' | 'int8';

/** Reduction length (input channels): 32 pairs. */
export const REDUCTION = 64;
/** One weight code per output channel. */
export const WEIGHT_CODES = [127, 96, 64, 0, -64, -96, -127] as const;
/** One activation code per row (MatMul) or pixel (Conv). */
export const ACTIVATION_CODES: Readonly<Record<ActivationCodes, readonly number[]>> = {
  uint8: [255, 200, 129, 64],
  int8: [127, 100, 1, -128],
};
/** The output's scale: 2^14, so that ±2 × 255 × 127 × 32 fits its 8-bit codes. */
const OUTPUT_SCALE = 2 ** 14;

export interface SaturatingGemm {
  /** The model, opset 13: x → Q → DQ → op (DQ'd int8 weights) → Q → DQ → y. */
  readonly bytes: Uint8Array;
  readonly inputName: string;
  readonly input: Float32Array;
  readonly inputDims: readonly number[];
  /** y as the exact integer arithmetic gives it, in the output's layout. */
  readonly exact: Float32Array;
  /** y as a kernel adding u8 × s8 pairs in saturating 16 bits gives it. */
  readonly saturated: Float32Array;
}

/** Rounds half to even and clamps to the output type, as QuantizeLinear does. */
function quantize(y: number, type: ActivationCodes): number {
  const [lo, hi, zero] = type === 'uint8' ? [0, 255, 128] : [-128, 127, 0];
  const v = y / OUTPUT_SCALE;
  const f = Math.floor(v);
  const r = v - f > 0.5 || (v - f === 0.5 && f % 2 !== 0) ? f + 1 : f;
  return (Math.min(hi, Math.max(lo, r + zero)) - zero) * OUTPUT_SCALE;
}

const saturate16 = (v: number) => Math.min(32767, Math.max(-32768, v));

/** The model and its two expected outputs for `op` on activations of `type`. */
export function saturatingGemm(op: SaturatingOp, type: ActivationCodes): SaturatingGemm {
  const rows = ACTIVATION_CODES[type];
  const channels = WEIGHT_CODES.length;
  const elem = type === 'uint8' ? DataType.UINT8 : DataType.INT8;
  const zero = (name: string) =>
    makeTensor(name, elem, [], type === 'uint8' ? new Uint8Array([128]) : new Int8Array([0]));
  // MatMul: x [rows, K] × w [K, N]; Conv: x [1, K, 1, rows] * w [N, K, 1, 1] (a 1×1 convolution over `rows` pixels).
  const inputDims = op === 'MatMul' ? [rows.length, REDUCTION] : [1, REDUCTION, 1, rows.length];
  const weightDims = op === 'MatMul' ? [REDUCTION, channels] : [channels, REDUCTION, 1, 1];
  const outputDims = op === 'MatMul' ? [rows.length, channels] : [1, channels, 1, rows.length];
  const input = new Float32Array(rows.length * REDUCTION);
  const weights = new Int8Array(REDUCTION * channels);
  for (let r = 0; r < rows.length; r++) {
    for (let k = 0; k < REDUCTION; k++) input[op === 'MatMul' ? r * REDUCTION + k : k * rows.length + r] = rows[r];
  }
  for (let n = 0; n < channels; n++) {
    for (let k = 0; k < REDUCTION; k++)
      weights[op === 'MatMul' ? k * channels + n : n * REDUCTION + k] = WEIGHT_CODES[n];
  }
  const exact = new Float32Array(rows.length * channels);
  const saturated = new Float32Array(rows.length * channels);
  // Input zero point 0 (uint8) or 0 shifted to 128 (int8 → uint8, as onnxruntime's x86 kernels run it).
  const shift = type === 'uint8' ? 0 : 128;
  for (let r = 0; r < rows.length; r++) {
    for (let n = 0; n < channels; n++) {
      const a = rows[r] + shift;
      const c = WEIGHT_CODES[n];
      const pairs = (REDUCTION / 2) * saturate16(2 * a * c);
      const at = op === 'MatMul' ? r * channels + n : n * rows.length + r;
      exact[at] = quantize(rows[r] * c * REDUCTION, type);
      saturated[at] = quantize(pairs - shift * c * REDUCTION, type);
    }
  }
  const nodes = [
    makeNode('QuantizeLinear', ['x', 'one', 'zero_in'], ['x_q'], 'x_q'),
    makeNode('DequantizeLinear', ['x_q', 'one', 'zero_in'], ['x_dq'], 'x_dq'),
    makeNode('DequantizeLinear', ['w', 'one', 'zero_w'], ['w_dq'], 'w_dq'),
    op === 'MatMul'
      ? makeNode('MatMul', ['x_dq', 'w_dq'], ['y_float'], 'gemm')
      : makeNode('Conv', ['x_dq', 'w_dq'], ['y_float'], 'gemm', [intsAttribute('kernel_shape', [1, 1])]),
    makeNode('QuantizeLinear', ['y_float', 'out_scale', 'zero_out'], ['y_q'], 'y_q'),
    makeNode('DequantizeLinear', ['y_q', 'out_scale', 'zero_out'], ['y'], 'y'),
  ];
  const inputZero = type === 'uint8' ? new Uint8Array([0]) : new Int8Array([0]);
  const graph = makeGraph({
    name: `saturating_${op}_${type}`,
    node: nodes,
    input: [makeValueInfo('x', DataType.FLOAT, inputDims)],
    output: [makeValueInfo('y', DataType.FLOAT, outputDims)],
    initializer: [
      makeTensor('one', DataType.FLOAT, [], new Float32Array([1])),
      makeTensor('zero_in', elem, [], inputZero),
      makeTensor('w', DataType.INT8, weightDims, weights),
      makeTensor('zero_w', DataType.INT8, [], new Int8Array([0])),
      makeTensor('out_scale', DataType.FLOAT, [], new Float32Array([OUTPUT_SCALE])),
      zero('zero_out'),
    ],
  });
  return {
    bytes: encode(makeModel(graph, { '': 13 }, 7)),
    inputName: 'x',
    input,
    inputDims,
    exact,
    saturated,
  };
}
