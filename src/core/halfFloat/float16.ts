/**
 * FP16 source models, as the Ryzen AI guide's "INT8 Quantization for FP16 Models" treats them: which nodes
 * compute in float16, the guide's convert_fp16_to_fp32 (the whole model, or the nodes of
 * `subgraphs_to_include` with Casts at their borders) and its inverse for test models. The quantizer
 * calibrates and plans on the float32 form and puts the float16 parts back afterwards (quantizeModel).
 */
import { DataType, opsetOf, type ModelProto, type NodeProto } from '../onnx/index.ts';
import { castRegion } from './castRegion.ts';
import { inferElementTypes } from '../onnx/elementTypeInference.ts';
import { fusedIntoFloat32ScaleKernel } from './ortCpuFusions.ts';

/** The nodes of the main graph that read or write a float16 tensor (Casts to float16 included). */
export function float16Nodes(model: ModelProto): Set<NodeProto> {
  const graph = model.graph!;
  const types = inferElementTypes(graph);
  const half = (t: string) => !!t && types.get(t) === DataType.FLOAT16;
  return new Set(graph.node.filter((n) => n.input.some(half) || n.output.some(half)));
}

/** Graph inputs and outputs of a float type other than `to`, mapped to `to`. */
function floatIoAs(model: ModelProto, to: number): Map<string, number> {
  const g = model.graph!;
  const io = new Map<string, number>();
  for (const v of [...g.input, ...g.output]) {
    const e = v.type?.tensor_type?.elem_type;
    if ((e === DataType.FLOAT || e === DataType.FLOAT16) && e !== to) io.set(v.name ?? '', to);
  }
  for (const t of g.initializer) io.delete(t.name ?? '');
  return io;
}

/**
 * The model with `nodes` (default: every node) computing in float32. Converting every node also turns the
 * float16 graph inputs and outputs into float32, as Quark's convert_fp16_to_fp32 tool does; converting a
 * part keeps the model's interface and puts Casts at the part's borders (the guide's subgraphs_to_include).
 */
export function float16ToFloat32(model: ModelProto, nodes?: ReadonlySet<NodeProto>): ModelProto {
  if (!nodes) {
    const known = wholeFloat32Forms.get(model);
    if (known) return known;
  }
  const graph = model.graph!;
  const region = nodes ?? new Set(graph.node);
  const io = nodes ? undefined : floatIoAs(model, DataType.FLOAT);
  const form = { ...model, graph: castRegion(graph, { region, to: DataType.FLOAT, opset: opsetOf(model) ?? 1, io }) };
  if (!nodes) wholeFloat32Forms.set(model, form);
  return form;
}

/**
 * The whole-model float32 form of each model converted so far: a model is not changed once made (every step returns
 * a new one), so its form stays right, and the plan, each calibration pass and each preparation share one (ISNet:
 * 0.15 CPU s a conversion, and the same initializer objects, whose quantized weights QuantizedWeights shares).
 */
const wholeFloat32Forms = new WeakMap<ModelProto, ModelProto>();

/** The whole model in float16, interface included (Resize's scales stay float32): FP16 versions of test models. */
export function float32ToFloat16(model: ModelProto): ModelProto {
  const graph = model.graph!;
  const io = floatIoAs(model, DataType.FLOAT16);
  return {
    ...model,
    graph: castRegion(graph, { region: new Set(graph.node), to: DataType.FLOAT16, opset: opsetOf(model) ?? 1, io }),
  };
}

/** What quantizing a float16 source model takes: its float32 form and which of its nodes go back to float16. */
export interface Float16Source {
  /** The model wholly in float32 (same nodes at the same positions, so node ids and tensor names are the same). */
  readonly model32: ModelProto;
  /** Positions (in graph.node) of the nodes that stay float16 in the result. */
  readonly keepHalf: ReadonlySet<number>;
  /** Graph inputs and outputs that stay float16 (the result keeps the model's interface). */
  readonly halfIo: ReadonlyMap<string, number>;
  /** Q/DQ of float16 tensors carry float16 scales (QuantizeFP16 without UseFP32Scale). */
  readonly fp16Scales: boolean;
}

/**
 * The float16 plan of a model for `options`, or undefined when the model has no float16 tensor.
 * `toFp32` are the nodes the guide's subgraphs_to_include select (already resolved by the caller).
 */
export function float16Source(
  model: ModelProto,
  options: { convertAll: boolean; useFp32Scale: boolean; toFp32: ReadonlySet<number> },
): Float16Source | undefined {
  const half = float16Nodes(model);
  if (half.size === 0) return undefined;
  const nodes = model.graph!.node;
  const keepHalf = new Set<number>();
  if (!options.convertAll)
    nodes.forEach((n, i) => {
      if (half.has(n) && !options.toFp32.has(i)) keepHalf.add(i);
    });
  const halfIo = new Map<string, number>();
  if (!options.convertAll) {
    for (const v of [...model.graph!.input, ...model.graph!.output]) {
      if (v.type?.tensor_type?.elem_type === DataType.FLOAT16) halfIo.set(v.name ?? '', DataType.FLOAT16);
    }
  }
  return { model32: float16ToFloat32(model), keepHalf, halfIo, fp16Scales: !options.useFp32Scale };
}

/**
 * Puts the float16 parts back into a quantized graph: the nodes named in `halfNames` compute in float16
 * again, with their Q/DQ too when `fp16Scales` (a QuantizeLinear reading a float16 tensor, a
 * DequantizeLinear whose readers are all float16; int32 bias DequantizeLinear keep float32 scales, which
 * float16 would flush towards zero). A Q/DQ next to an op that onnxruntime's CPU provider fuses into a
 * QLinear kernel (ortCpuFusions.ts) keeps float32 scales with a Cast between it and the op: with float16
 * scales onnxruntime would fuse it anyway and refuse the model at its default options. Every border gets a
 * Cast; the interface is restored as `halfIo` says.
 */
export function restoreFloat16(
  model: ModelProto,
  halfNames: ReadonlySet<string>,
  halfIo: ReadonlyMap<string, number>,
  fp16Scales: boolean,
): ModelProto {
  const graph = model.graph!;
  const region = new Set(graph.node.filter((n) => halfNames.has(n.name ?? '')));
  if (fp16Scales) {
    const producer = new Map<string, NodeProto>();
    const consumers = new Map<string, NodeProto[]>();
    for (const n of graph.node) {
      n.output.forEach((o) => producer.set(o, n));
      n.input.forEach((t) => consumers.set(t, [...(consumers.get(t) ?? []), n]));
    }
    const int32 = new Set(graph.initializer.filter((t) => t.data_type === DataType.INT32).map((t) => t.name ?? ''));
    const halfInput = (t: string) => region.has(producer.get(t)!) || halfIo.get(t) === DataType.FLOAT16;
    const fusedProducer = (t: string) => {
      const p = producer.get(t);
      return p !== undefined && fusedIntoFloat32ScaleKernel(p);
    };
    for (const n of graph.node) {
      if (n.op_type === 'QuantizeLinear' && halfInput(n.input[0]) && !fusedProducer(n.input[0])) region.add(n);
    }
    for (const n of graph.node) {
      if (n.op_type !== 'DequantizeLinear' || int32.has(n.input[0])) continue;
      const readers = consumers.get(n.output[0]) ?? [];
      const toHalfOutput = halfIo.get(n.output[0]) === DataType.FLOAT16;
      if (
        (readers.length > 0 || toHalfOutput) &&
        readers.every((r) => region.has(r) && !fusedIntoFloat32ScaleKernel(r))
      )
        region.add(n);
    }
  }
  return {
    ...model,
    graph: castRegion(graph, { region, to: DataType.FLOAT16, opset: opsetOf(model) ?? 1, io: halfIo }),
  };
}

/**
 * The model as calibration and evaluation run it: a float16 model wholly in float32 (same node and tensor
 * names, so ranges apply to the source), any other model as it is. Images become float32 tensors, and
 * ranges are float32 numbers either way.
 */
export function asFloat32(model: ModelProto): ModelProto {
  return float16Nodes(model).size > 0 ? float16ToFloat32(model) : model;
}

/**
 * The model unchanged inside but with float32 inputs and outputs (Casts at the interface), so one float32
 * feed serves a float16 model and its quantization alike and their outputs compare as float32.
 */
export function withFloat32Interface(model: ModelProto): ModelProto {
  const io = floatIoAs(model, DataType.FLOAT);
  if (io.size === 0) return model;
  return {
    ...model,
    graph: castRegion(model.graph!, { region: new Set(), to: DataType.FLOAT, opset: opsetOf(model) ?? 1, io }),
  };
}
