/**
 * BF16 as the Ryzen AI guide's "BF16 Quantization for CPU/GPU Validation" makes it with Quark's "with-cast"
 * mode (BF16QDQToCast): where a Q/DQ pair would go, a Cast to bfloat16 and a Cast back to float32, so a
 * float32 runtime computes every op on bfloat16-rounded values, as the NPU compiler's BF16 does (round to
 * nearest even: onnxruntime's Cast rounds so, measured). Weights are stored as bfloat16 and cast up.
 *
 * One routine for two uses: the BF16 preset (every node), and judging the float parts of a quantized model
 * as the NPU runs them (the compiler turns excluded float32 subgraphs into BF16). No calibration is needed:
 * bfloat16 has float32's range, so there is no scale to choose.
 */
import {
  DataType,
  intAttribute,
  makeNode,
  tensorsReadBy,
  type GraphProto,
  type ModelProto,
  type NodeProto,
  type TensorProto,
} from '../onnx/index.ts';
import { makeTensor, readTensorAsFloat32 } from '../onnx/tensorData.ts';
import { numberToBfloat16 } from '../onnx/halfFloat.ts';
import { NameAllocator } from '../prepare/names.ts';
import { inferElementTypes } from '../onnx/elementTypeInference.ts';
import { isFixedFloat32Input } from './castRegion.ts';
import { opsetOf } from '../onnx/model.ts';
import { prepare } from '../prepare/prepare.ts';

export interface Bf16Summary {
  /** Float32 activations that pass through bfloat16. */
  readonly activations: number;
  /** Float32 weights stored as bfloat16. */
  readonly weights: number;
}

/**
 * The model with every float32 tensor that `region` nodes read or write rounded to bfloat16 ("with-cast":
 * Cast → bfloat16 → Cast → float32; weights stored as bfloat16). Default region: every node. Node names,
 * graph inputs and outputs keep their names and float32 types.
 */
export function bf16WithCast(
  model: ModelProto,
  region?: ReadonlySet<NodeProto>,
): { model: ModelProto; summary: Bf16Summary } {
  const graph = model.graph!;
  const inRegion = region ?? new Set(graph.node);
  const opset = opsetOf(model) ?? 1;
  const types = inferElementTypes(graph, { opset });
  const isF32 = (t: string) => !!t && types.get(t) === DataType.FLOAT;
  const initializers = new Map(graph.initializer.map((t) => [t.name ?? '', t]));
  const names = new NameAllocator();
  names.addGraph(graph);

  // Weights read by region nodes: rounded and stored as bfloat16, a Cast to float32 before their readers.
  const weightCasts: NodeProto[] = [];
  const replacedWeight = new Map<string, string>();
  const bf16Weights: TensorProto[] = [];
  const readByRegion = new Set<string>();
  for (const n of graph.node)
    if (inRegion.has(n))
      n.input.forEach((t, k) => {
        if (!isFixedFloat32Input(n, k, opset)) readByRegion.add(t);
      });
  for (const [name, t] of initializers) {
    if (!readByRegion.has(name) || t.data_type !== DataType.FLOAT) continue;
    const stored = makeTensor(
      names.fresh(`${name}_bf16`),
      DataType.BFLOAT16,
      t.dims.map(Number),
      Uint16Array.from(readTensorAsFloat32(t), numberToBfloat16),
    );
    bf16Weights.push(stored);
    const up = names.fresh(`${name}_bf16_float`);
    weightCasts.push(
      makeNode('Cast', [stored.name!], [up], names.fresh(`${name}_Cast_float`), [intAttribute('to', DataType.FLOAT)]),
    );
    replacedWeight.set(name, up);
  }

  // Activations: one round trip per tensor, emitted before its first region reader.
  const roundTrip = new Map<string, string>();
  const nodes: NodeProto[] = [...weightCasts];
  const emitRoundTrip = (t: string): string => {
    let out = roundTrip.get(t);
    if (!out) {
      const low = names.fresh(`${t}_bf16`);
      out = names.fresh(`${t}_bf16_float`);
      nodes.push(makeNode('Cast', [t], [low], names.fresh(`${t}_Cast_bf16`), [intAttribute('to', DataType.BFLOAT16)]));
      nodes.push(makeNode('Cast', [low], [out], names.fresh(`${t}_Cast_float`), [intAttribute('to', DataType.FLOAT)]));
      roundTrip.set(t, out);
    }
    return out;
  };
  for (const n of graph.node) {
    if (!inRegion.has(n)) {
      nodes.push(n);
      continue;
    }
    const input = n.input.map((t, k) => {
      if (replacedWeight.has(t) && !isFixedFloat32Input(n, k, opset)) return replacedWeight.get(t)!;
      if (!isF32(t) || initializers.has(t) || isFixedFloat32Input(n, k, opset)) return t;
      return emitRoundTrip(t);
    });
    nodes.push({ ...n, input });
  }

  // Graph outputs a region node writes are rounded too (a Q/DQ pair would sit there), under their own names.
  const regionOutputs = new Set<string>();
  for (const n of graph.node) if (inRegion.has(n)) n.output.forEach((o) => regionOutputs.add(o));
  let outputsRounded = 0;
  for (const v of graph.output) {
    const y = v.name ?? '';
    if (!regionOutputs.has(y) || !isF32(y)) continue;
    const inner = names.fresh(`${y}_before_bf16`);
    for (const m of nodes) {
      if (m.output.includes(y)) m.output = m.output.map((o) => (o === y ? inner : o));
      if (m.input.includes(y)) m.input = m.input.map((i) => (i === y ? inner : i));
    }
    const low = names.fresh(`${y}_bf16`);
    nodes.push(
      makeNode('Cast', [inner], [low], names.fresh(`${y}_Cast_bf16`), [intAttribute('to', DataType.BFLOAT16)]),
    );
    nodes.push(makeNode('Cast', [low], [y], names.fresh(`${y}_Cast_float`), [intAttribute('to', DataType.FLOAT)]));
    outputsRounded++;
  }

  const read = tensorsReadBy(nodes);
  const initializer = [...graph.initializer.filter((t) => read.has(t.name ?? '')), ...bf16Weights];
  const out: GraphProto = { ...graph, node: nodes.map((n) => ({ ...n })), initializer };
  return {
    model: { ...model, graph: out },
    summary: { activations: roundTrip.size + outputsRounded, weights: bf16Weights.length },
  };
}

/**
 * The nodes of a QDQ model that compute in float: every node other than QuantizeLinear/DequantizeLinear
 * whose float output goes somewhere other than a QuantizeLinear (an excluded node, an op without a rule,
 * a node writing a graph output as float). A quantized op's outputs all go through a QuantizeLinear (a Relu
 * fused into its Conv counts with the Conv). These are what the NPU compiler runs in BF16.
 */
export function floatParts(model: ModelProto): Set<NodeProto> {
  const graph = model.graph!;
  const types = inferElementTypes(graph);
  const consumers = new Map<string, NodeProto[]>();
  for (const n of graph.node) n.input.forEach((t) => consumers.set(t, [...(consumers.get(t) ?? []), n]));
  const graphOutputs = new Set(graph.output.map((v) => v.name ?? ''));
  const isQdq = (n: NodeProto) => n.op_type === 'QuantizeLinear' || n.op_type === 'DequantizeLinear';
  const fused = (n: NodeProto) => FUSED_ACTIVATIONS.has(n.op_type ?? '');
  /** Every reader of `t` quantizes it (directly, or through a fused activation that does). */
  const quantizedOutput = (t: string, depth = 0): boolean => {
    if (graphOutputs.has(t)) return false;
    const readers = consumers.get(t) ?? [];
    return (
      readers.length > 0 &&
      readers.every(
        (r) =>
          r.op_type === 'QuantizeLinear' || (depth === 0 && fused(r) && r.output.every((o) => quantizedOutput(o, 1))),
      )
    );
  };
  const parts = new Set<NodeProto>();
  for (const n of graph.node) {
    if (isQdq(n)) continue;
    const floatOutputs = n.output.filter((o) => o && types.get(o) === DataType.FLOAT);
    if (floatOutputs.length === 0) continue;
    if (!floatOutputs.every((o) => quantizedOutput(o))) parts.add(n);
  }
  return parts;
}

const FUSED_ACTIVATIONS = new Set(['Relu', 'Clip']);

/** ai.onnx opset from which Cast takes bfloat16. */
const BF16_CAST_OPSET = 13;

/** The model at an opset whose Cast takes bfloat16 (raised by the studio's graph preparation when below). */
function withBf16Cast(model: ModelProto): ModelProto {
  return (opsetOf(model) ?? 1) >= BF16_CAST_OPSET ? model : prepare(model, { targetOpset: BF16_CAST_OPSET }).model;
}

/**
 * The BF16 preset with BF16QDQToCast: the whole float model with bfloat16 round trips where Q/DQ would go,
 * for measuring BF16 loss on a CPU. The opset is raised to 13 where needed. Calibration is not used.
 */
export function bf16Model(model: ModelProto): { model: ModelProto; summary: Bf16Summary } {
  return bf16WithCast(withBf16Cast(model));
}

/** The note of a ladder whose rungs were judged through floatPartsAsBf16 (its report, from the worker or the page). */
export const RUNGS_JUDGED_AS_NPU_NOTE =
  'Every rung was judged as the NPU runs it: its float parts (exclusions, ops left float) in BF16, as the Ryzen AI compiler runs them; the written models keep them in float32.';

/**
 * A quantized model with its float parts (floatParts) run as the NPU compiler runs them, in BF16 (with-cast);
 * the quantized parts are unchanged. `nodes` is how many nodes that was.
 */
export function floatPartsAsBf16(quantized: ModelProto): { model: ModelProto; nodes: number; summary: Bf16Summary } {
  const model = withBf16Cast(quantized);
  const parts = floatParts(model);
  const result = bf16WithCast(model, parts);
  return { ...result, nodes: parts.size };
}
