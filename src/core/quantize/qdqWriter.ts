/**
 * Writes a plan into the graph: integer initializers with a DequantizeLinear for constants, and a
 * QuantizeLinear → DequantizeLinear pair after every quantized activation, read by its consumers (one
 * pair per consumer with DedicatedQDQPair). Graph inputs and outputs keep their names: a quantized
 * graph output is renamed inside the graph and its DequantizeLinear writes the original name.
 * Original nodes keep their names, unnamed ones take their stable ids (so the report, the exclusion
 * snippets and the file name the same node); new nodes and tensors get names derived from what they serve.
 *
 * A Conv, ConvTranspose or Gemm kept float (its weight a float initializer) reads the float tensor, not the
 * DequantizeLinear output: onnxruntime's WeightBiasQuantization rewrite (graph level 1, on by default, node and
 * web) quantizes any such node whose input comes from a DequantizeLinear, weight to int8 per tensor and bias
 * through Div → Round → Cast, so the node would not stay float, and below opset 11 (no Round) the model would
 * not load at all. The tensor's own pair is still written, read by nobody (see quantizeTensor).
 */
import { tensorsReadBy, type GraphIndex } from '../onnx/graphIndex.ts';
import {
  intAttribute,
  makeNode,
  type AttributeProto,
  type GraphProto,
  type NodeProto,
  type TensorProto,
} from '../onnx/model.ts';
import { makeTensor } from '../onnx/tensorData.ts';
import { QUANT_TYPES, type QuantType } from './numeric.ts';
import type { ActivationQuant, QuantPlan } from './plan.ts';
import type { QuantizedConstant } from './weights.ts';

export interface WriterOptions {
  /** '' for ai.onnx Q/DQ, 'com.microsoft' for ONNX Runtime's contrib Q/DQ (16-bit types below opset 21). */
  domain: string;
  dedicatedPairs: boolean;
  /** The stable id of node i, written as the name of nodes that have none (reports and snippets name them so). */
  idOf(i: number): string;
  /**
   * Names already used anywhere in the model, shared by the writes of every scope of one model (a subgraph's new
   * tensors must not take a name of an enclosing scope's, nor the reverse); the writer adds what it names.
   */
  taken?: Set<string>;
  /** Attributes replacing node i's (its subgraphs as written by quantizeSubgraphs.ts). */
  attributesOf?(i: number): AttributeProto[] | undefined;
}

/** Typed array holding zero points of a type (one element per zero point). */
function zeroPointArray(type: QuantType, values: ArrayLike<number>) {
  switch (type) {
    case 'int8':
    case 'int4':
      return Int8Array.from(values);
    case 'uint8':
    case 'uint4':
      return Uint8Array.from(values);
    case 'int16':
      return Int16Array.from(values);
    case 'uint16':
      return Uint16Array.from(values);
    default:
      return Int32Array.from(values);
  }
}

/** Ops whose float form onnxruntime quantizes by itself when their first input comes from a DequantizeLinear. */
const RUNTIME_QUANTIZED_WHEN_FED_BY_DQ = new Set(['Conv', 'ConvTranspose', 'Gemm']);

/** Whether node i stays float and must read its first input unquantized (see the header). */
export function readsFloatInput(index: GraphIndex, plan: QuantPlan, i: number): boolean {
  const node = index.nodes[i];
  if ((node.domain ?? '') !== '' || !RUNTIME_QUANTIZED_WHEN_FED_BY_DQ.has(node.op_type ?? '')) return false;
  if (plan.constantInputs.get(i)?.get(1) !== undefined) return false;
  const weight = index.initializers.get(node.input[1] ?? '');
  return weight !== undefined && weight.data_type === 1;
}

export function writeQdqGraph(index: GraphIndex, plan: QuantPlan, options: WriterOptions): GraphProto {
  const graph = index.graph;
  const taken = options.taken ?? new Set<string>();
  graph.node.forEach((n, i) => {
    n.output.forEach((o) => taken.add(o));
    taken.add(n.name || options.idOf(i));
  });
  graph.input.forEach((v) => taken.add(v.name ?? ''));
  graph.initializer.forEach((t) => taken.add(t.name ?? ''));
  const unique = (base: string) => {
    let name = base;
    for (let k = 2; taken.has(name); k++) name = `${base}_${k}`;
    taken.add(name);
    return name;
  };

  const newInitializers: TensorProto[] = [];
  const nodes: NodeProto[] = [];
  const dq = (input: string[], output: string, name: string, axis?: number) =>
    makeNode(
      'DequantizeLinear',
      input,
      [output],
      name,
      axis !== undefined ? [intAttribute('axis', axis)] : [],
      options.domain,
    );

  // Constants: one DequantizeLinear per quantized constant, placed first.
  const constantOutput = new Map<string, string>();
  for (const [key, c] of plan.constants) {
    constantOutput.set(key, emitConstant(c));
  }
  function emitConstant(c: QuantizedConstant): string {
    const base = c.source;
    const codes = makeTensor(unique(`${base}_quantized`), QUANT_TYPES[c.type].onnxType, c.dims, c.codes);
    const perChannel = c.axis !== undefined;
    const scale = makeTensor(
      unique(`${base}_scale`),
      1,
      perChannel ? [c.scales.length] : [],
      perChannel ? c.scales : Float32Array.of(c.scales[0]),
    );
    newInitializers.push(codes, scale);
    const inputs = [codes.name!, scale.name!];
    if (c.zeroPoints) {
      const zp = makeTensor(
        unique(`${base}_zero_point`),
        QUANT_TYPES[c.type].onnxType,
        perChannel ? [c.zeroPoints.length] : [],
        zeroPointArray(c.type, perChannel ? c.zeroPoints : [c.zeroPoints[0]]),
      );
      newInitializers.push(zp);
      inputs.push(zp.name!);
    }
    const out = unique(`${base}_DequantizeLinear_Output`);
    nodes.push(dq(inputs, out, unique(`${base}_DequantizeLinear`), c.axis));
    return out;
  }

  // Activations: scale and zero point initializers shared by the tensor's pairs.
  const qparamInputs = new Map<string, [string, string]>();
  const paramsOf = (t: string, q: ActivationQuant): [string, string] => {
    let p = qparamInputs.get(t);
    if (!p) {
      const scale = makeTensor(unique(`${t}_scale`), 1, [], Float32Array.of(q.scale));
      const zp = makeTensor(
        unique(`${t}_zero_point`),
        QUANT_TYPES[q.type].onnxType,
        [],
        zeroPointArray(q.type, [q.zeroPoint]),
      );
      newInitializers.push(scale, zp);
      p = [scale.name!, zp.name!];
      qparamInputs.set(t, p);
    }
    return p;
  };
  /** Emits Q → DQ of tensor `source` (whose float value is named `floatName`) and returns the DQ output. */
  const emitPair = (t: string, floatName: string, q: ActivationQuant, dqOutput?: string, suffix = ''): string => {
    const [scale, zp] = paramsOf(t, q);
    const quantized = unique(`${t}_QuantizeLinear_Output${suffix}`);
    nodes.push(
      makeNode(
        'QuantizeLinear',
        [floatName, scale, zp],
        [quantized],
        unique(`${t}_QuantizeLinear${suffix}`),
        [],
        options.domain,
      ),
    );
    const out = dqOutput ?? unique(`${t}_DequantizeLinear_Output${suffix}`);
    nodes.push(dq([quantized, scale, zp], out, unique(`${t}_DequantizeLinear${suffix}`)));
    return out;
  };

  const graphOutputs = new Set(graph.output.map((o) => o.name ?? ''));
  /** For each quantized tensor: what each consumer node reads instead (shared, or per consumer). */
  const readAs = new Map<string, Map<number, string>>();
  const renamedOutputs = new Map<string, string>();
  const quantizeTensor = (t: string, floatName: string) => {
    const q = plan.activations.get(t)!;
    const map = new Map<number, string>();
    const all = index.consumers.get(t) ?? [];
    const consumers = all.filter((c) => !(index.nodes[c].input[0] === t && readsFloatInput(index, plan, c)));
    for (const c of all) if (!consumers.includes(c)) map.set(c, floatName);
    readAs.set(t, map);
    // A tensor whose only readers now read it float keeps its pair, read by nobody: without a QuantizeLinear after
    // it, onnxruntime's extended-level QDQ propagation copies the DequantizeLinear feeding its producer (e.g. a
    // MaxPool) past it and, at opset 21, writes a QuantizeLinear whose output_dtype contradicts its zero point.
    if (options.dedicatedPairs && consumers.length > 1) {
      consumers.forEach((c, k) => map.set(c, emitPair(t, floatName, q, undefined, `_${k + 1}`)));
      if (graphOutputs.has(t)) emitPair(t, floatName, q, t, '_output');
    } else {
      const out = emitPair(t, floatName, q, graphOutputs.has(t) ? t : undefined);
      consumers.forEach((c) => map.set(c, out));
    }
  };

  for (const v of graph.input) if (plan.activations.has(v.name ?? '')) quantizeTensor(v.name!, v.name!);
  // In a subgraph, tensors of enclosing scopes that its nodes read are quantized where they enter it.
  for (const t of index.consumers.keys()) {
    if (
      plan.activations.has(t) &&
      !index.producer.has(t) &&
      !index.initializers.has(t) &&
      !graph.input.some((v) => v.name === t)
    )
      quantizeTensor(t, t);
  }
  for (const i of index.order) {
    const node = index.nodes[i];
    const consts = plan.constantInputs.get(i);
    const input = node.input.map((name, k) => {
      const key = consts?.get(k);
      if (key) return constantOutput.get(key)!;
      return readAs.get(name)?.get(i) ?? name;
    });
    const output = node.output.map((o) => {
      if (plan.activations.has(o) && graphOutputs.has(o)) {
        const inner = unique(`${o}_QuantizeLinear_Input`);
        renamedOutputs.set(o, inner);
        return inner;
      }
      return o;
    });
    nodes.push({
      ...node,
      name: node.name || options.idOf(i),
      input,
      output,
      attribute: options.attributesOf?.(i) ?? node.attribute,
    });
    for (const o of node.output) if (plan.activations.has(o)) quantizeTensor(o, renamedOutputs.get(o) ?? o);
  }

  // Float initializers no node reads any more (replaced by their codes) are dropped; those a subgraph reads stay.
  const read = tensorsReadBy(nodes);
  const initializer = [...graph.initializer.filter((t) => read.has(t.name ?? '')), ...newInitializers];
  return { ...graph, node: nodes, initializer };
}
