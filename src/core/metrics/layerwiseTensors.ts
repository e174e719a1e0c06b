/**
 * Which tensor of a quantized model holds the value of each float-model tensor: the pairing that
 * layer-wise comparison runs on.
 *
 * The quantizer keeps the float model's tensor names for node outputs and puts a QuantizeLinear →
 * DequantizeLinear pair after each quantized activation. So a float tensor `t` has up to two
 * counterparts in the quantized model: the value its producer computed there (`t` itself, from
 * dequantized inputs and weights) and, when `t` is quantized, the dequantized value its consumers
 * read. A quantized graph output is the exception: the model output keeps the name `t` and is the
 * DequantizeLinear's output, while the computed value is renamed. The pairing is read from the
 * graph's structure (Q → DQ chains), never from name patterns, so suffixes added for uniqueness or
 * dedicated pairs do not matter. Tensors the quantized model no longer has (a BatchNormalization
 * folded into its Conv) are listed as missing, not guessed. Must not run models or compare values.
 */

import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import { isDefaultDomain, type ModelProto, type NodeId, type NodeProto } from '../onnx/model.ts';

/** One float tensor and its counterparts in the quantized model. */
export interface TensorPair {
  /** The tensor's name in the float model. */
  readonly tensor: string;
  /** Stable id (float model's graph index) of the node producing it; null for a graph input. */
  readonly node: NodeId | null;
  /** The producer's op type; 'input' for a graph input. */
  readonly opType: string;
  /** The quantized model's tensor with the value computed before quantization. */
  readonly value: string;
  /** The quantized model's DequantizeLinear output of that value (what consumers read); null when not quantized. */
  readonly dequantized: string | null;
}

export interface LayerwisePairing {
  /** Paired tensors, graph inputs first, then node outputs in the float model's topological order. */
  readonly pairs: readonly TensorPair[];
  /** Float tensors with no counterpart in the quantized model (folded or removed by graph preparation). */
  readonly missing: readonly string[];
}

const isQdqOp = (n: NodeProto, op: string) =>
  n.op_type === op && (isDefaultDomain(n.domain) || n.domain === 'com.microsoft');

/** Q → DQ chains of a quantized graph: DQ outputs of each quantized value, and the value behind each DQ output. */
function qdqChains(index: GraphIndex): { dequantizedOf: Map<string, string[]>; valueOf: Map<string, string> } {
  const dequantizedOf = new Map<string, string[]>();
  const valueOf = new Map<string, string>();
  for (const q of index.nodes) {
    if (!isQdqOp(q, 'QuantizeLinear') || !q.input[0] || !q.output[0]) continue;
    for (const c of index.consumers.get(q.output[0]) ?? []) {
      const dq = index.nodes[c];
      if (!isQdqOp(dq, 'DequantizeLinear') || dq.input[0] !== q.output[0] || !dq.output[0]) continue;
      const list = dequantizedOf.get(q.input[0]) ?? [];
      list.push(dq.output[0]);
      dequantizedOf.set(q.input[0], list);
      valueOf.set(dq.output[0], q.input[0]);
    }
  }
  return { dequantizedOf, valueOf };
}

/**
 * Pairs every float32-candidate tensor of the float model (graph inputs and node outputs, Constant
 * nodes excepted) with its counterparts in the quantized model. `floatIndex` may be passed when the
 * caller already built it; node ids come from it.
 */
export function pairLayerTensors(
  floatModel: ModelProto,
  quantModel: ModelProto,
  floatIndex: GraphIndex = buildGraphIndex(floatModel.graph!),
): LayerwisePairing {
  const qIndex = buildGraphIndex(quantModel.graph!);
  const { dequantizedOf, valueOf } = qdqChains(qIndex);
  const qInputs = new Set(qIndex.inputs.map((v) => v.name ?? ''));
  const computed = (name: string) => qInputs.has(name) || (qIndex.producer.has(name) && !valueOf.has(name));

  const pairs: TensorPair[] = [];
  const missing: string[] = [];
  const add = (tensor: string, node: NodeId | null, opType: string) => {
    let value: string | undefined;
    let dequantized: string | null = null;
    if (valueOf.has(tensor)) {
      // A quantized graph output: the name is the DequantizeLinear's output, the value was renamed.
      value = valueOf.get(tensor)!;
      dequantized = tensor;
    } else if (computed(tensor)) {
      value = tensor;
      dequantized = dequantizedOf.get(tensor)?.[0] ?? null;
    }
    if (value === undefined) missing.push(tensor);
    else pairs.push({ tensor, node, opType, value, dequantized });
  };

  for (const v of floatIndex.inputs) if (v.name) add(v.name, null, 'input');
  for (const i of floatIndex.order) {
    const node = floatIndex.nodes[i];
    if (node.op_type === 'Constant') continue;
    for (const o of node.output) if (o) add(o, floatIndex.ids[i], node.op_type ?? '');
  }
  return { pairs, missing };
}

/** The tensors to expose in each model to observe the pairs (plus the given extra names, e.g. the model outputs). */
export function exposedNames(
  pairs: readonly TensorPair[],
  extra: { float?: readonly string[]; quant?: readonly string[] } = {},
): { float: string[]; quant: string[] } {
  const float = new Set<string>(extra.float ?? []);
  const quant = new Set<string>(extra.quant ?? []);
  for (const p of pairs) {
    float.add(p.tensor);
    quant.add(p.value);
    if (p.dequantized) quant.add(p.dequantized);
  }
  return { float: [...float], quant: [...quant] };
}
