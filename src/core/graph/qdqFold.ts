/**
 * A QDQ model read as quantized: each QuantizeLinear → DequantizeLinear pair is folded onto the edge it
 * quantizes, and each DequantizeLinear of a constant (an integer weight or bias) onto the node that reads it,
 * with the integer type, scale(s) and zero point(s) in plain values. Works on any QDQ form the studio, ONNX
 * Runtime and Quark write: ai.onnx or com.microsoft (16-bit) Q/DQ, Quark's Extended Q/DQ, per-tensor or
 * per-channel (`axis`), the type from the zero point, from `output_dtype` (opset 21) or uint8 by default.
 *
 * Pure: reads a GraphIndex (the page's weight-less copy keeps the bytes of every Q/DQ scale and zero point,
 * structure.ts), so the graph view, the precision colours and the split view's node mapping share it.
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import { weightOf } from '../onnx/graphIndex.ts';
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
}

/** An activation quantized by a Q → DQ pair: consumers read `tensor`, which stands for `source`. */
export interface FoldedEdge {
  kind: 'activation';
  /** The DequantizeLinear's output (what the consumers read). */
  tensor: string;
  /** The float tensor the pair quantizes (the QuantizeLinear's input). */
  source: string;
  quantize: number;
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

/**
 * The parameters of a Q or DQ node. `codesType`: the element type of the integer side when known otherwise (a
 * weight DQ's initializer).
 */
export function quantParamsOf(index: GraphIndex, node: NodeProto, codesType?: number): QuantParams {
  const scaleName = node.input[1] ?? '';
  const zpName = node.input[2] ?? '';
  const scale = tensorOf(index, scaleName);
  const zp = tensorOf(index, zpName);
  const dataType = codesType ?? zp?.data_type ?? intAttribute(node, 'output_dtype') ?? DataType.UINT8;
  const scales = readable(scale);
  const channels = scale ? scale.dims.reduce((a, d) => a * Number(d), 1) : (scales?.length ?? 1);
  const perChannel = channels > 1;
  const zeroPoints = zp ? readable(zp) : new Float32Array(Math.max(1, channels));
  return {
    type: elementTypeName(dataType),
    bits: elementType(dataType)?.bits ?? 8,
    axis: perChannel ? (intAttribute(node, 'axis') ?? 1) : undefined,
    scales,
    zeroPoints,
    channels,
    scaleTensor: scaleName,
    zeroPointTensor: zpName,
  };
}

/** Folds every Q → DQ pair and every DQ of a constant. A Q whose output some non-DQ node reads stays a node. */
export function foldQdq(index: GraphIndex): QdqFold {
  const folded = new Uint8Array(index.nodes.length);
  const edges = new Map<string, FoldedEdge>();
  const weights = new Map<string, FoldedWeight>();
  const graphOutputs = new Set(index.outputs.map((v) => v.name ?? ''));
  let qdqNodes = 0;
  for (let i = 0; i < index.nodes.length; i++) {
    const node = index.nodes[i];
    if (isQuantizeNode(node)) qdqNodes++;
    if (!isDequantizeNode(node)) continue;
    qdqNodes++;
    const input = node.input[0] ?? '';
    const out = node.output[0] ?? '';
    if (!input || !out) continue;
    const constant = tensorOf(index, input);
    if (constant) {
      folded[i] = 1;
      weights.set(out, {
        kind: 'weight',
        tensor: out,
        codes: input,
        quantizedAtRun: false,
        dequantize: i,
        params: quantParamsOf(index, node, constant.data_type),
      });
      continue;
    }
    const q = index.producer.get(input);
    if (q === undefined || !isQuantizeNode(index.nodes[q])) continue;
    const qNode = index.nodes[q];
    // The Q folds only when every reader of its codes is a DQ (each DQ then folds onto its own edge).
    const readers = index.consumers.get(input) ?? [];
    if (graphOutputs.has(input) || !readers.every((r) => isDequantizeNode(index.nodes[r]))) continue;
    folded[i] = 1;
    folded[q] = 1;
    const source = qNode.input[0] ?? '';
    if (tensorOf(index, source)) {
      weights.set(out, {
        kind: 'weight',
        tensor: out,
        codes: source,
        quantizedAtRun: true,
        dequantize: i,
        params: quantParamsOf(index, qNode),
      });
      continue;
    }
    edges.set(out, {
      kind: 'activation',
      tensor: out,
      source,
      quantize: q,
      dequantize: i,
      params: quantParamsOf(index, qNode),
    });
  }
  return { folded, edges, weights, qdqNodes };
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

/** Whether the graph holds Q/DQ nodes (a QDQ model). */
export function hasQdq(index: GraphIndex): boolean {
  return index.nodes.some((n) => isQuantizeNode(n) || isDequantizeNode(n));
}

/**
 * Each node's precision read from a QDQ file, as the quantizer labels it ("A8W8", "A16W8", "A8", "W8", "float"):
 * the widest integer type among its activations (inputs read through a Q/DQ pair, and outputs a Q/DQ pair
 * quantizes: a Relu fused after a Conv has only the latter) and among its constant inputs (DQ of integer codes;
 * biases, int32, are not counted). Q/DQ nodes themselves are left out. By node index.
 */
export function qdqPrecisionLabels(index: GraphIndex, fold: QdqFold): Map<number, string> {
  const out = new Map<number, string>();
  const quantizedOutputs = new Map<string, number>();
  for (const e of fold.edges.values())
    quantizedOutputs.set(e.source, Math.max(quantizedOutputs.get(e.source) ?? 0, e.params.bits));
  for (let i = 0; i < index.nodes.length; i++) {
    const node = index.nodes[i];
    if (isQuantizeNode(node) || isDequantizeNode(node)) continue;
    let a = 0,
      w = 0;
    for (const t of node.output) a = Math.max(a, quantizedOutputs.get(t) ?? 0);
    for (const t of node.input) {
      const edge = fold.edges.get(t);
      if (edge) a = Math.max(a, edge.params.bits);
      const weight = fold.weights.get(t);
      if (weight && weight.params.bits < 32) w = Math.max(w, weight.params.bits);
    }
    out.set(i, a || w ? `${a ? `A${a}` : ''}${w ? `W${w}` : ''}` : 'float');
  }
  return out;
}
