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
 * folded into its Conv) are listed as missing, not guessed.
 *
 * Tensors inside If/Loop/Scan bodies are paired too, where calibration can read them
 * (calibrate/run/exposeSubgraphs.ts: float32, no If inside a loop): on a model whose compute sits in one If
 * (Silero VAD at opset 18) that is where the error comes from. A body node's id is its holder's id, the
 * attribute and its id in the body (`node_cond__1/then_branch/Conv_3`), as the quantizer names what it writes
 * there; its pairs come just before its holder's outputs. The quantizer keeps body tensor names as it keeps the
 * main graph's (names are unique across a model's scopes), so the same Q → DQ reading holds in every scope.
 * Must not run models or compare values.
 */

import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import { isDefaultDomain, type ModelProto, type NodeId, type NodeProto } from '../onnx/model.ts';
import { CONTROL_FLOW_OPS, readableBodyTensors } from '../onnx/scopes.ts';
import { forEachGraph } from '../onnx/walk.ts';

/** One float tensor and its counterparts in the quantized model. */
export interface TensorPair {
  /** The tensor's name in the float model. */
  readonly tensor: string;
  /**
   * Stable id (float model's graph index) of the node producing it; null for a graph input. Inside a body, the
   * holder's id, the attribute and the node's id in the body, joined by `/`.
   */
  readonly node: NodeId | null;
  /** The producer's op type; 'input' for a graph input (a body's input too: a Loop's carried value, a Scan's slice). */
  readonly opType: string;
  /** The quantized model's tensor with the value computed before quantization. */
  readonly value: string;
  /** The quantized model's DequantizeLinear output of that value (what consumers read); null when not quantized. */
  readonly dequantized: string | null;
}

export interface LayerwisePairing {
  /**
   * Paired tensors, graph inputs first, then node outputs in the float model's topological order, a control-flow
   * node's body tensors just before its own outputs.
   */
  readonly pairs: readonly TensorPair[];
  /** Float tensors with no counterpart in the quantized model (folded or removed by graph preparation). */
  readonly missing: readonly string[];
}

const isQdqOp = (n: NodeProto, op: string) =>
  n.op_type === op && (isDefaultDomain(n.domain) || n.domain === 'com.microsoft');

interface QuantizedTensors {
  /** DQ outputs of each quantized value. */
  readonly dequantizedOf: Map<string, string[]>;
  /** The value behind each DQ output. */
  readonly valueOf: Map<string, string>;
  /** Tensors computed in the quantized model: graph and body inputs, node outputs (in any scope). */
  readonly present: Set<string>;
}

/** Q → DQ chains of a quantized graph, added to `into`. */
function qdqChains(index: GraphIndex, into: QuantizedTensors): void {
  const { dequantizedOf, valueOf, present } = into;
  for (const v of index.inputs) if (v.name) present.add(v.name);
  for (const n of index.nodes) for (const o of n.output) if (o) present.add(o);
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
}

/** The quantized model's tensors and Q → DQ chains in every scope (the main graph and every body). */
function quantizedTensors(quantModel: ModelProto): QuantizedTensors {
  const into: QuantizedTensors = { dequantizedOf: new Map(), valueOf: new Map(), present: new Set() };
  forEachGraph(quantModel.graph!, (g) => qdqChains(buildGraphIndex(g), into));
  return into;
}

/** Whether the model has a control-flow body with a tensor calibration could read. */
function hasBodies(model: ModelProto): boolean {
  return model.graph!.node.some((n) => CONTROL_FLOW_OPS.has(n.op_type ?? '') && n.attribute.some((a) => a.g));
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
  const { dequantizedOf, valueOf, present } = quantizedTensors(quantModel);
  const computed = (name: string) => present.has(name) && !valueOf.has(name);
  // Body tensors calibration can read, float32 only (an If's other branch returns an empty float tensor for them).
  const inBodies = hasBodies(floatModel) ? readableBodyTensors(floatModel) : new Map();

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

  const visit = (index: GraphIndex, prefix: string, body: boolean) => {
    const wanted = (t: string) => !!t && (!body || inBodies.has(t));
    for (const v of index.inputs) if (wanted(v.name ?? '')) add(v.name!, null, 'input');
    for (const i of index.order) {
      const node = index.nodes[i];
      if (node.op_type === 'Constant') continue;
      const id = `${prefix}${index.ids[i]}`;
      if (inBodies.size > 0 && CONTROL_FLOW_OPS.has(node.op_type ?? '') && isDefaultDomain(node.domain))
        for (const a of node.attribute) if (a.g) visit(buildGraphIndex(a.g), `${id}/${a.name}/`, true);
      for (const o of node.output) if (wanted(o)) add(o, id as NodeId, node.op_type ?? '');
    }
  };
  visit(floatIndex, '', false);
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
