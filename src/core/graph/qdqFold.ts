/**
 * A QDQ model read as quantized: each QuantizeLinear → DequantizeLinear pair is folded onto the edge it
 * quantizes, and each DequantizeLinear of a constant (an integer weight or bias) onto the node that reads it,
 * with the integer type, scale(s) and zero point(s) in plain values. Works on any QDQ form the studio, ONNX
 * Runtime and Quark write: ai.onnx or com.microsoft (16-bit) Q/DQ, Quark's Extended Q/DQ, per-tensor or
 * per-channel (`axis`), the type from the zero point, from `output_dtype` (opset 21) or uint8 by default.
 *
 * ONNX Runtime's QOperator and dynamic forms (QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger after a
 * DynamicQuantizeLinear, as quantize_dynamic writes them) have no Q/DQ pair to fold: their integer ops read the
 * codes, scales and zero points directly, so the same edges and weights are read off those ops' inputs (a
 * dynamic activation's scale and zero point are computed each run; a ConvInteger weight's scale is the constant
 * of the Mul that rescales its output). The dynamic form's own nodes fold too: a DynamicQuantizeLinear whose
 * outputs only integer ops and folded nodes read, and the float rescale after each ConvInteger or MatMulInteger
 * (`integerOpRescale`), whose result then stands for the op's output (`rescaled`).
 *
 * Pure: reads a GraphIndex (the page's weight-less copy keeps the bytes of every Q/DQ scale and zero point,
 * structure.ts), so the graph view, the precision colours and the split view's node mapping share it.
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import { inputNumber, outputNumber, weightOf } from '../onnx/graphIndex.ts';
import type { NodeProto, TensorProto } from '../onnx/model.ts';
import { DataType } from '../onnx/model.ts';
import { elementType, elementTypeName } from '../onnx/elementTypes.ts';
import { readTensorAsFloat32 } from '../onnx/tensorData.ts';

const QUANTIZE_OPS = new Set(['QuantizeLinear', 'ExtendedQuantizeLinear']);
const DEQUANTIZE_OPS = new Set(['DequantizeLinear', 'ExtendedDequantizeLinear']);

export function isQuantizeNode(node: NodeProto): boolean {
  return QUANTIZE_OPS.has(node.op_type ?? '');
}

export function isDequantizeNode(node: NodeProto): boolean {
  return DEQUANTIZE_OPS.has(node.op_type ?? '');
}

/** How a tensor is quantized: the integer type and the scales and zero points that map it to float. */
export interface QuantParams {
  /** 'int8', 'uint8', 'int16', 'int32', 'int4', … */
  type: string;
  bits: number;
  /** The channel axis of a per-channel quantization (undefined: per tensor). */
  axis?: number;
  /** One scale per channel (one for per tensor); null when the file's bytes were not at hand. */
  scales: Float32Array | null;
  /** Zero points, one per channel, or all 0 when the node has none. */
  zeroPoints: Float32Array | null;
  /** Number of scales (1 per tensor). */
  channels: number;
  scaleTensor: string;
  zeroPointTensor: string;
  /** Scale and zero point computed each run (DynamicQuantizeLinear): not in the file. */
  dynamic?: boolean;
}

/** An activation quantized by a Q → DQ pair: consumers read `tensor`, which stands for `source`. */
export interface FoldedEdge {
  kind: 'activation';
  /** The DequantizeLinear's output (what the consumers read). */
  tensor: string;
  /** The float tensor the pair quantizes (the QuantizeLinear's input). */
  source: string;
  quantize: number;
  /** -1 where an integer op reads the codes itself (QOperator, dynamic). */
  dequantize: number;
  params: QuantParams;
}

/** A constant stored as integers and dequantized once: a quantized weight or bias. */
export interface FoldedWeight {
  kind: 'weight';
  tensor: string;
  /** The initializer (or Constant) holding the integer codes (float values when `quantizedAtRun`). */
  codes: string;
  /** A float constant behind a Q → DQ pair: quantized each run, not stored as integers. */
  quantizedAtRun: boolean;
  /** -1 where an integer op reads the codes itself (QOperator, dynamic). */
  dequantize: number;
  params: QuantParams;
}

export interface QdqFold {
  /** 1 for every Q/DQ node folded away (an edge or a weight shows it instead). */
  folded: Uint8Array;
  /** Folded activations by the tensor their consumers read. */
  edges: Map<string, FoldedEdge>;
  /** Folded constants by the tensor their consumers read. */
  weights: Map<string, FoldedWeight>;
  /** How many Q/DQ nodes the graph has (folded or not). */
  qdqNodes: number;
  /**
   * ConvInteger/MatMulInteger node → tensor number of its float rescale's result (quantize_dynamic's form): the
   * rescale's nodes are folded, and what reads that result reads the op's output.
   */
  rescaled: Map<number, number>;
}

/** The tensor number of what a folded edge's or weight's consumers read: its DQ's output (an integer op's operand). */
export function foldedTensorNumber(index: GraphIndex, f: FoldedEdge | FoldedWeight): number {
  return f.dequantize >= 0 ? outputNumber(index, f.dequantize, 0) : (index.tensorNumber.get(f.tensor) ?? -1);
}

/** The tensor number of the float tensor a folded edge quantizes: its Q's input (an integer op's operand). */
export function foldedSourceNumber(index: GraphIndex, e: FoldedEdge): number {
  return e.dequantize >= 0 ? inputNumber(index, e.quantize, 0) : (index.tensorNumber.get(e.source) ?? -1);
}

function tensorOf(index: GraphIndex, name: string | undefined): TensorProto | undefined {
  return name ? weightOf(index, name) : undefined;
}

function readable(t: TensorProto | undefined): Float32Array | null {
  if (!t?.raw_data) return null;
  try {
    return readTensorAsFloat32(t);
  } catch {
    return null;
  }
}

function intAttribute(node: NodeProto, name: string): number | undefined {
  const a = node.attribute.find((x) => x.name === name);
  return a?.i !== undefined && a?.i !== null ? Number(a.i) : undefined;
}

function paramsFrom(
  index: GraphIndex,
  scaleName: string,
  zpName: string,
  dataType: number,
  axis: number | undefined,
): QuantParams {
  return paramsOf(tensorOf(index, scaleName), scaleName, tensorOf(index, zpName), zpName, dataType, axis);
}

/** The parameters read from the scale and zero-point tensors themselves (undefined: not a weight of the file). */
function paramsOf(
  scale: TensorProto | undefined,
  scaleName: string,
  zp: TensorProto | undefined,
  zpName: string,
  dataType: number,
  axis: number | undefined,
): QuantParams {
  const scales = readable(scale);
  const channels = scale ? scale.dims.reduce((a, d) => a * Number(d), 1) : (scales?.length ?? 1);
  const perChannel = channels > 1;
  const zeroPoints = zp ? readable(zp) : new Float32Array(Math.max(1, channels));
  return {
    type: elementTypeName(dataType),
    bits: elementType(dataType)?.bits ?? 8,
    axis: perChannel ? (axis ?? 1) : undefined,
    scales,
    zeroPoints,
    channels,
    scaleTensor: scaleName,
    zeroPointTensor: zpName,
  };
}

/**
 * The parameters of a Q or DQ node. `codesType`: the element type of the integer side when known otherwise (a
 * weight DQ's initializer).
 */
export function quantParamsOf(index: GraphIndex, node: NodeProto, codesType?: number): QuantParams {
  return qdqParams(node, tensorOf(index, node.input[1]), tensorOf(index, node.input[2]), codesType);
}

/** quantParamsOf for node number i, its scale and zero point found by tensor number rather than by name. */
function quantParamsAt(index: GraphIndex, i: number, codesType?: number): QuantParams {
  const weightAt = (x: number) => {
    const k = inputNumber(index, i, x);
    return k < 0 ? undefined : index.weightAt[k];
  };
  return qdqParams(index.nodes[i], weightAt(1), weightAt(2), codesType);
}

/** A Q or DQ node's parameters from its scale and zero-point tensors. */
function qdqParams(
  node: NodeProto,
  scale: TensorProto | undefined,
  zp: TensorProto | undefined,
  codesType?: number,
): QuantParams {
  const dataType = codesType ?? zp?.data_type ?? intAttribute(node, 'output_dtype') ?? DataType.UINT8;
  return paramsOf(scale, node.input[1] ?? '', zp, node.input[2] ?? '', dataType, intAttribute(node, 'axis'));
}

/** Where an integer op reads each operand's codes, scale and zero point (scale -1: not an input). */
const INTEGER_OPS: Record<string, readonly { codes: number; scale: number; zp: number }[]> = {
  ConvInteger: [
    { codes: 0, scale: -1, zp: 2 },
    { codes: 1, scale: -1, zp: 3 },
  ],
  MatMulInteger: [
    { codes: 0, scale: -1, zp: 2 },
    { codes: 1, scale: -1, zp: 3 },
  ],
  QLinearConv: [
    { codes: 0, scale: 1, zp: 2 },
    { codes: 3, scale: 4, zp: 5 },
  ],
  QLinearMatMul: [
    { codes: 0, scale: 1, zp: 2 },
    { codes: 3, scale: 4, zp: 5 },
  ],
};

/** The input positions of an integer op (QOperator, dynamic) that carry its operands' codes; undefined for other ops. */
export function integerOpCodeSlots(node: NodeProto): readonly number[] | undefined {
  return INTEGER_OPS[node.op_type ?? '']?.map((slot) => slot.codes);
}

/** The one node reading tensor number k, or -1 (none or several). */
function soleReader(index: GraphIndex, k: number): number {
  return k >= 0 && index.consumerStart[k + 1] - index.consumerStart[k] === 1
    ? index.consumerNodes[index.consumerStart[k]]
    : -1;
}

/** Whether tensor number k is a constant or the output of a node that reads only constants (a bias's Reshape). */
function constantLike(index: GraphIndex, k: number): boolean {
  if (k < 0) return false;
  if (index.weightAt[k]) return true;
  const p = index.producerOf[k];
  if (p < 0) return false;
  for (let r = index.inputStart[p]; r < index.inputStart[p + 1]; r++) {
    const t = index.inputNumbers[r];
    if (t >= 0 && !index.weightAt[t]) return false;
  }
  return true;
}

/**
 * The float rescale ONNX Runtime's quantize_dynamic writes after a ConvInteger or MatMulInteger: Cast of the int32
 * result, Mul by the product of the two scales (itself a Mul of the activation's run-time scale by the weight's), and
 * Add of the bias (a constant, or a Reshape of one): `nodes`, in that order with the scales' Mul and the bias's
 * Reshape where each is read by the chain alone, and `output`, the tensor number of the chain's float result (what
 * the float model's Conv or MatMul computed, usually under its name). Null where the op's output is not so read.
 */
export function integerOpRescale(index: GraphIndex, op: number): { nodes: number[]; output: number } | null {
  const node = index.nodes[op];
  if (node.op_type !== 'ConvInteger' && node.op_type !== 'MatMulInteger') return null;
  const cast = soleReader(index, outputNumber(index, op, 0));
  if (cast < 0 || index.nodes[cast].op_type !== 'Cast') return null;
  const mul = soleReader(index, outputNumber(index, cast, 0));
  if (mul < 0 || index.nodes[mul].op_type !== 'Mul') return null;
  const nodes = [cast, mul];
  const castOut = outputNumber(index, cast, 0);
  for (let x = 0; x < 2; x++) {
    const k = inputNumber(index, mul, x);
    const scales = k === castOut || k < 0 ? -1 : index.producerOf[k];
    if (scales >= 0 && index.nodes[scales].op_type === 'Mul' && soleReader(index, k) === mul) nodes.push(scales);
  }
  let output = outputNumber(index, mul, 0);
  const add = soleReader(index, output);
  if (add >= 0 && index.nodes[add].op_type === 'Add') {
    const other = [0, 1].map((x) => inputNumber(index, add, x)).find((k) => k !== output) ?? -1;
    if (constantLike(index, other)) {
      nodes.push(add);
      const reshape = index.producerOf[other];
      if (reshape >= 0 && soleReader(index, other) === add) nodes.push(reshape);
      output = outputNumber(index, add, 0);
    }
  }
  return output < 0 ? null : { nodes, output };
}

/** Whether a node computes with integer codes itself (QOperator, dynamic) or quantizes each run. */
function isIntegerOp(node: NodeProto): boolean {
  return node.op_type === 'DynamicQuantizeLinear' || (node.op_type ?? '') in INTEGER_OPS;
}

/**
 * The constant scale of a ConvInteger/MatMulInteger weight as quantize_dynamic writes it: the op's output is
 * cast to float and multiplied by Mul(activation scale, weight scale). '' when the graph has another shape.
 */
function rescaleConstant(index: GraphIndex, op: number): string {
  for (const cast of index.consumers.get(index.nodes[op].output[0] ?? '') ?? []) {
    if (index.nodes[cast].op_type !== 'Cast') continue;
    const castOut = index.nodes[cast].output[0] ?? '';
    for (const mul of index.consumers.get(castOut) ?? []) {
      if (index.nodes[mul].op_type !== 'Mul') continue;
      const other = index.nodes[mul].input.find((t) => t !== castOut) ?? '';
      const product = index.producer.get(other);
      const inner = product !== undefined ? index.nodes[product] : undefined;
      if (inner?.op_type !== 'Mul') continue;
      const constant = inner.input.find((t) => tensorOf(index, t));
      if (constant) return constant;
    }
  }
  return '';
}

/** The edges and weights of the integer ops (QOperator, dynamic): codes read without a Q/DQ pair. */
function foldIntegerOps(index: GraphIndex, edges: Map<string, FoldedEdge>, weights: Map<string, FoldedWeight>) {
  for (let i = 0; i < index.nodes.length; i++) {
    const node = index.nodes[i];
    const operands = INTEGER_OPS[node.op_type ?? ''];
    if (!operands) continue;
    const matMul = node.op_type?.includes('MatMul');
    for (const slot of operands) {
      const codes = node.input[slot.codes] ?? '';
      if (!codes) continue;
      const zpName = node.input[slot.zp] ?? '';
      const constant = tensorOf(index, codes);
      if (constant) {
        if (weights.has(codes)) continue;
        const scaleName = slot.scale >= 0 ? (node.input[slot.scale] ?? '') : rescaleConstant(index, i);
        weights.set(codes, {
          kind: 'weight',
          tensor: codes,
          codes,
          quantizedAtRun: false,
          dequantize: -1,
          params: paramsFrom(index, scaleName, zpName, constant.data_type ?? DataType.UINT8, matMul ? 1 : 0),
        });
        continue;
      }
      if (edges.has(codes)) continue;
      const producer = index.producer.get(codes);
      const dynamic = producer !== undefined && index.nodes[producer].op_type === 'DynamicQuantizeLinear';
      const scaleName = dynamic ? '' : slot.scale >= 0 ? (node.input[slot.scale] ?? '') : '';
      const dataType = dynamic ? DataType.UINT8 : (tensorOf(index, zpName)?.data_type ?? DataType.UINT8);
      const params = paramsFrom(index, scaleName, dynamic ? '' : zpName, dataType, undefined);
      edges.set(codes, {
        kind: 'activation',
        tensor: codes,
        source: dynamic ? (index.nodes[producer!].input[0] ?? codes) : codes,
        quantize: producer ?? -1,
        dequantize: -1,
        params: dynamic ? { ...params, scales: null, zeroPoints: null, dynamic: true } : params,
      });
    }
  }
}

/**
 * Folds quantize_dynamic's own nodes: each integer op's float rescale (recorded in `rescaled`), then each
 * DynamicQuantizeLinear whose outputs are read only by integer ops (codes and zero point) and folded nodes (the
 * rescale's Mul of the scales); its codes' edge then runs from the float tensor it quantizes.
 */
function foldDynamicForm(
  index: GraphIndex,
  graphOutputs: ReadonlySet<string>,
  folded: Uint8Array,
  rescaled: Map<number, number>,
) {
  for (let i = 0; i < index.nodes.length; i++) {
    const chain = integerOpRescale(index, i);
    if (!chain) continue;
    for (const n of chain.nodes) folded[n] = 1;
    rescaled.set(i, chain.output);
  }
  for (let i = 0; i < index.nodes.length; i++) {
    if (index.nodes[i].op_type !== 'DynamicQuantizeLinear') continue;
    let readByFoldOnly = true;
    for (let k = index.outputStart[i]; k < index.outputStart[i + 1] && readByFoldOnly; k++)
      for (let c = index.consumerStart[k]; c < index.consumerStart[k + 1]; c++) {
        const reader = index.consumerNodes[c];
        if (!folded[reader] && !((index.nodes[reader].op_type ?? '') in INTEGER_OPS)) readByFoldOnly = false;
      }
    if (readByFoldOnly && !index.nodes[i].output.some((t) => graphOutputs.has(t))) folded[i] = 1;
  }
}

/** Whether every node reading tensor number `k` is a DequantizeLinear. */
function onlyDequantizeReads(index: GraphIndex, k: number): boolean {
  for (let c = index.consumerStart[k]; c < index.consumerStart[k + 1]; c++)
    if (!isDequantizeNode(index.nodes[index.consumerNodes[c]])) return false;
  return true;
}

/** Folds every Q → DQ pair and every DQ of a constant. A Q whose output some non-DQ node reads stays a node. */
export function foldQdq(index: GraphIndex): QdqFold {
  const folded = new Uint8Array(index.nodes.length);
  const edges = new Map<string, FoldedEdge>();
  const weights = new Map<string, FoldedWeight>();
  const graphOutputs = new Set(index.outputs.map((v) => v.name ?? ''));
  let qdqNodes = 0;
  // Tensors by number (graphIndex.ts): a 67,000-node QDQ graph has ~33,000 DQs, each reading three names.
  for (let i = 0; i < index.nodes.length; i++) {
    const node = index.nodes[i];
    if (isQuantizeNode(node)) qdqNodes++;
    if (!isDequantizeNode(node)) continue;
    qdqNodes++;
    const input = node.input[0] ?? '';
    const out = node.output[0] ?? '';
    if (!input || !out) continue;
    const codes = inputNumber(index, i, 0);
    const constant = index.weightAt[codes];
    if (constant) {
      folded[i] = 1;
      weights.set(out, {
        kind: 'weight',
        tensor: out,
        codes: input,
        quantizedAtRun: false,
        dequantize: i,
        params: quantParamsAt(index, i, constant.data_type),
      });
      continue;
    }
    const q = index.producerOf[codes];
    if (q < 0 || !isQuantizeNode(index.nodes[q])) continue;
    const qNode = index.nodes[q];
    // The Q folds only when every reader of its codes is a DQ (each DQ then folds onto its own edge).
    if (graphOutputs.has(input) || !onlyDequantizeReads(index, codes)) continue;
    folded[i] = 1;
    folded[q] = 1;
    const source = qNode.input[0] ?? '';
    const sourceNumber = inputNumber(index, q, 0);
    if (sourceNumber >= 0 && index.weightAt[sourceNumber]) {
      weights.set(out, {
        kind: 'weight',
        tensor: out,
        codes: source,
        quantizedAtRun: true,
        dequantize: i,
        params: quantParamsAt(index, q),
      });
      continue;
    }
    edges.set(out, {
      kind: 'activation',
      tensor: out,
      source,
      quantize: q,
      dequantize: i,
      params: quantParamsAt(index, q),
    });
  }
  foldIntegerOps(index, edges, weights);
  const rescaled = new Map<number, number>();
  foldDynamicForm(index, graphOutputs, folded, rescaled);
  return { folded, edges, weights, qdqNodes, rescaled };
}

/** A number as people read scales: 4 significant digits, exponent form when very small or large. */
export function plainNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Number.isInteger(v)) return String(v);
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(3) : String(Number(v.toPrecision(4)));
}

function extent(values: Float32Array): [number, number] {
  let lo = Infinity,
    hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}

/**
 * "int8 · scale 0.0123 · zp 0"; per channel "int8 · 64 channels (axis 0) · scale 1.2e-4…0.0345 · zp 0".
 * Where the bytes were not at hand: "int8 · scale (not read)".
 */
export function quantLabel(p: QuantParams): string {
  const parts = [p.type];
  if (p.dynamic) return `${p.type} · scale and zp computed each run`;
  if (p.channels > 1) parts.push(`${p.channels} channels${p.axis !== undefined ? ` (axis ${p.axis})` : ''}`);
  if (!p.scales) parts.push('scale (not read)');
  else if (p.scales.length === 1) parts.push(`scale ${plainNumber(p.scales[0])}`);
  else {
    const [lo, hi] = extent(p.scales);
    parts.push(lo === hi ? `scale ${plainNumber(lo)}` : `scale ${plainNumber(lo)}…${plainNumber(hi)}`);
  }
  if (p.zeroPoints && p.zeroPoints.length) {
    const [lo, hi] = extent(p.zeroPoints);
    parts.push(lo === hi ? `zp ${lo}` : `zp ${lo}…${hi}`);
  }
  return parts.join(' · ');
}

/** Whether the graph holds Q/DQ nodes (a QDQ model) or integer ops (ONNX Runtime's QOperator and dynamic forms). */
export function hasQdq(index: GraphIndex): boolean {
  return index.nodes.some((n) => isQuantizeNode(n) || isDequantizeNode(n) || isIntegerOp(n));
}

/**
 * Each node's precision read from a QDQ file, as the quantizer labels it ("A8W8", "A16W8", "A8", "W8", "float"):
 * the widest integer type among its activations (inputs read through a Q/DQ pair, and outputs a Q/DQ pair
 * quantizes: a Relu fused after a Conv has only the latter) and among its constant inputs (DQ of integer codes;
 * biases, int32, are not counted). Q/DQ nodes themselves are left out. By node index.
 */
export function qdqPrecisionLabels(index: GraphIndex, fold: QdqFold): Map<number, string> {
  const out = new Map<number, string>();
  // Bit widths by tensor number: of the outputs a Q/DQ pair quantizes, of the edges and of the integer weights.
  const tensors = index.tensorNames.length;
  const quantizedOutputs = new Uint8Array(tensors);
  const edgeBits = new Uint8Array(tensors);
  const weightBits = new Uint8Array(tensors);
  for (const e of fold.edges.values()) {
    const k = foldedTensorNumber(index, e);
    if (k >= 0) edgeBits[k] = e.params.bits;
    const source = e.params.dynamic ? -1 : foldedSourceNumber(index, e);
    if (source >= 0) quantizedOutputs[source] = Math.max(quantizedOutputs[source], e.params.bits);
  }
  for (const f of fold.weights.values()) {
    const k = foldedTensorNumber(index, f);
    if (k >= 0) weightBits[k] = f.params.bits < 32 ? f.params.bits : 0;
  }
  for (let i = 0; i < index.nodes.length; i++) {
    const node = index.nodes[i];
    if (isQuantizeNode(node) || isDequantizeNode(node) || node.op_type === 'DynamicQuantizeLinear') continue;
    let a = 0,
      w = 0;
    for (let k = index.outputStart[i]; k < index.outputStart[i + 1]; k++) a = Math.max(a, quantizedOutputs[k]);
    for (let r = index.inputStart[i]; r < index.inputStart[i + 1]; r++) {
      const k = index.inputNumbers[r];
      if (k < 0) continue;
      a = Math.max(a, edgeBits[k]);
      w = Math.max(w, weightBits[k]);
    }
    out.set(i, a || w ? `${a ? `A${a}` : ''}${w ? `W${w}` : ''}` : 'float');
  }
  return out;
}
