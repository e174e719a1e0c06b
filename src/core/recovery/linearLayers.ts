/**
 * The layers fast finetune and bias correction work on: Conv (1-D or 2-D, any group), Gemm (transA = 0, alpha = beta = 1)
 * and MatMul with a 2-D constant weight, found in a QDQ model with their weight codes, scales and zero points, and
 * matched by output name to the float model they were quantized from. Each is seen as Mg×Kg matrices, one per
 * group: output channel m of group g reads row elements [g·Kg, (g+1)·Kg) of an input row (an im2col patch for
 * Conv, a feature vector for Gemm/MatMul). Also writes tuned codes and biases back into the QDQ model.
 * Pure data plumbing: no optimization here, no runtime.
 */
import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import {
  intAttribute,
  isDefaultDomain,
  makeNode,
  type ModelProto,
  type NodeId,
  type NodeProto,
  type TensorProto,
} from '../onnx/model.ts';
import { makeTensor, readTensor, readTensorAsFloat32 } from '../onnx/tensorData.ts';
import { QUANT_TYPES, roundHalfToEven, type QuantType } from '../quantize/numeric.ts';
import { isIfBranch, scopedBodies } from '../quantize/bodyViews.ts';
import { forEachGraph, replaceTensors } from '../onnx/walk.ts';

export interface ConvGeometry {
  readonly kernel: readonly [number, number];
  readonly strides: readonly [number, number];
  readonly dilations: readonly [number, number];
  /** top, left, bottom, right; resolved from auto_pad when the input size is known. */
  readonly pads: readonly [number, number, number, number];
  readonly autoPad: string;
}

/** How a quantized bias is stored, so a changed bias can be written back on the same grid. */
export type BiasStore =
  | { readonly kind: 'none' }
  | { readonly kind: 'float'; readonly name: string }
  | {
      readonly kind: 'quantized';
      readonly codes: string;
      readonly scales: Float32Array;
      readonly zeroPoints: Int32Array | undefined;
      readonly type: QuantType;
    };

export interface LinearLayer {
  /** The node's id; inside a body its scoped id (`if/then_branch/conv1`). */
  readonly id: NodeId;
  /** '' in the main graph; inside an If branch the prefix of its scoped id (`if/then_branch/`). */
  readonly scope: string;
  readonly opType: 'Conv' | 'Gemm' | 'MatMul';
  /** Node index in its graph of the QDQ model (the body's view inside a body). */
  readonly node: number;
  /** The node's first output: finds it again once updates have added nodes before it. */
  readonly output: string;
  /** The input tensor in the float model, and in the QDQ model (a DequantizeLinear output when quantized). */
  readonly floatInput: string;
  readonly quantInput: string;
  readonly outChannels: number;
  readonly groups: number;
  /** Inputs per output channel (Cg·kH·kW for Conv, K for Gemm/MatMul). */
  readonly inPerGroup: number;
  /** Flat index of weight element (m, k), k within the group. */
  readonly weightIndex: (m: number, k: number) => number;
  readonly conv?: ConvGeometry;
  /** The float weight as the float model has it. */
  readonly floatWeight: Float32Array;
  /** Current bias in real units, as the QDQ model computes it (zeros when the layer has none). */
  readonly bias: Float32Array;
  /** The float model's bias (zeros when none). */
  readonly floatBias: Float32Array;
  readonly codesName: string;
  readonly codes: Int32Array;
  readonly type: QuantType;
  /** Scale and zero point of output channel m's weights. */
  readonly scaleOf: (m: number) => number;
  readonly zeroPointOf: (m: number) => number;
  readonly biasStore: BiasStore;
}

export interface SkippedLayer {
  readonly id: NodeId;
  readonly reason: string;
}

const ints = (n: NodeProto, name: string): number[] | undefined =>
  n.attribute.find((a) => a.name === name)?.ints.map(Number);
const int = (n: NodeProto, name: string, fallback: number) => {
  const a = n.attribute.find((x) => x.name === name);
  return a?.i !== undefined && a.i !== null ? Number(a.i) : fallback;
};
const float = (n: NodeProto, name: string, fallback: number) => n.attribute.find((x) => x.name === name)?.f ?? fallback;

/** The initializers behind a DequantizeLinear output, when it dequantizes a constant. */
function dequantizedConstant(index: GraphIndex, tensor: string) {
  const p = index.producer.get(tensor);
  if (p === undefined) return undefined;
  const dq = index.nodes[p];
  if (dq.op_type !== 'DequantizeLinear') return undefined;
  const codes = index.initializers.get(dq.input[0]);
  const scale = index.initializers.get(dq.input[1]);
  if (!codes || !scale) return undefined;
  const zp = dq.input[2] ? index.initializers.get(dq.input[2]) : undefined;
  const axisAttr = dq.attribute.find((a) => a.name === 'axis');
  return { codes, scale, zp, axis: axisAttr ? Number(axisAttr.i ?? 1) : 1 };
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * The int32 grid of a new bias for a layer whose input comes through a DequantizeLinear with one scale: scale
 * input × weight (per output channel when the weight is), in the input DequantizeLinear's domain. Null when the
 * input is not quantized that way (the bias then stays float).
 */
function int32BiasGrid(
  index: GraphIndex,
  node: NodeProto,
  layer: LinearLayer,
): { scales: Float32Array; domain: string } | null {
  const p = index.producer.get(node.input[0]);
  const dq = p === undefined ? undefined : index.nodes[p];
  if (!dq || dq.op_type !== 'DequantizeLinear') return null;
  const inputScale = index.initializers.get(dq.input[1]);
  if (!inputScale || inputScale.dims.reduce((a, b) => a * Number(b), 1) !== 1) return null;
  const s = readTensorAsFloat32(inputScale)[0];
  const weight = dequantizedConstant(index, node.input[1]);
  const perChannel = !!weight && weight.scale.dims.reduce((a, b) => a * Number(b), 1) > 1;
  const scales = perChannel
    ? Float32Array.from({ length: layer.outChannels }, (_, m) => s * layer.scaleOf(m))
    : Float32Array.of(s * layer.scaleOf(0));
  return { scales, domain: dq.domain ?? '' };
}

function quantTypeOf(t: TensorProto): QuantType | undefined {
  return (Object.keys(QUANT_TYPES) as QuantType[]).find((k) => QUANT_TYPES[k].onnxType === t.data_type);
}

/** Whether `n` is an op fine-tuning and bias correction work on: ONNX's own Conv, Gemm or MatMul. */
function isLinearOp(n: NodeProto): n is NodeProto & { op_type: LinearLayer['opType'] } {
  return (n.op_type === 'Conv' || n.op_type === 'Gemm' || n.op_type === 'MatMul') && isDefaultDomain(n.domain);
}

/**
 * Whether a float model has a layer findLinearLayers could match once quantized: a Conv, Gemm or MatMul in its main
 * graph with a constant weight, or, with `bodies` (the quantizer enters them: EnableSubgraph), one of a form it tunes
 * inside an If branch at any depth of If (Silero VAD op18 keeps all its compute there). Where it has none, fine-tuning
 * and bias correction have nothing to work on.
 */
export function hasLinearLayer(floatModel: ModelProto, options: { bodies?: boolean } = {}): boolean {
  const graph = floatModel.graph!;
  const constants = new Set(graph.initializer.map((t) => t.name));
  if (graph.node.some((n) => isLinearOp(n) && constants.has(n.input[1]))) return true;
  return (
    !!options.bodies && scopedBodies(floatModel).some((b) => isIfBranch(b) && linearLayerNodes(b.index).length > 0)
  );
}

/**
 * Why a Conv, Gemm or MatMul with a weight of these dims cannot be tuned or corrected (its form), or undefined where
 * it can: what findLinearLayers skips a layer for before it reads the weight's values.
 */
export function linearFormProblem(n: NodeProto, dims: readonly number[]): string | undefined {
  if (n.op_type === 'Conv')
    return dims.length === 4 || dims.length === 3
      ? undefined
      : `a ${dims.length - 2}-D convolution (1-D and 2-D are tuned)`;
  if (n.op_type === 'Gemm')
    return int(n, 'transA', 0) !== 0 || float(n, 'alpha', 1) !== 1 || float(n, 'beta', 1) !== 1 || dims.length !== 2
      ? 'Gemm with transA, alpha or beta'
      : undefined;
  return dims.length === 2 ? undefined : 'MatMul with a weight of rank other than 2';
}

/**
 * The nodes of an indexed graph that findLinearLayers would take once quantized: ONNX's Conv, Gemm and MatMul whose
 * weight is a float constant of a form it tunes (linearFormProblem). By index in `index`.
 */
export function linearLayerNodes(index: GraphIndex): number[] {
  return Array.from(index.order).filter((i) => {
    const n = index.nodes[i];
    const w = isLinearOp(n) ? index.initializers.get(n.input[1]) : undefined;
    return !!w && w.data_type === 1 && linearFormProblem(n, w.dims.map(Number)) === undefined;
  });
}

/**
 * Target layers of a QDQ model, matched to the float model; layers that cannot be tuned are listed with why. With
 * `bodies`, also the layers inside If branches (at any depth of If), seen as the quantizer sees them (bodyViews.ts),
 * named by scoped id, their float twins found in the float model's branch of the same scoped path (a bias-less one
 * there gets no bias: applyLayerUpdates adds none inside a branch). Layers in Loop and Scan bodies are not taken:
 * their inputs are read per iteration, and gathered rows would mix iterations.
 */
export function findLinearLayers(
  floatModel: ModelProto,
  quantModel: ModelProto,
  options: { bodies?: boolean } = {},
): { layers: LinearLayer[]; skipped: SkippedLayer[] } {
  const layers: LinearLayer[] = [];
  const skipped: SkippedLayer[] = [];
  collectLayers(buildGraphIndex(floatModel.graph!), buildGraphIndex(quantModel.graph!), '', layers, skipped);
  if (options.bodies) {
    const floatBodies = new Map(scopedBodies(floatModel).map((b) => [b.prefix, b]));
    for (const b of scopedBodies(quantModel)) {
      const f = floatBodies.get(b.prefix);
      if (f && isIfBranch(b)) collectLayers(f.index, b.index, b.prefix, layers, skipped);
    }
  }
  return { layers, skipped };
}

/** The layers of one scope (the main graph, prefix '', or a body) into `layers` and `skipped`. */
function collectLayers(
  fIndex: GraphIndex,
  qIndex: GraphIndex,
  scope: string,
  layers: LinearLayer[],
  skipped: SkippedLayer[],
): void {
  const fByName = new Map<string, number>();
  fIndex.nodes.forEach((n, i) => {
    if (n.name) fByName.set(n.name, fByName.has(n.name) ? -1 : i);
  });
  for (const [k, v] of fByName) if (v < 0) fByName.delete(k);
  for (const i of qIndex.order) {
    const n = qIndex.nodes[i];
    if (!isLinearOp(n)) continue;
    const op = n.op_type;
    const id = `${scope}${qIndex.ids[i]}` as NodeId;
    const skip = (reason: string) => skipped.push({ id, reason });
    const w = dequantizedConstant(qIndex, n.input[1]);
    if (!w) {
      if (qIndex.producer.get(n.input[1]) !== undefined) skip('its weight is not a quantized constant');
      continue;
    }
    const type = quantTypeOf(w.codes);
    if (!type || type === 'int4' || type === 'uint4') {
      skip('its weight codes have an unsupported type');
      continue;
    }
    // By node name first (a quantized graph output is renamed inside the graph), then by output tensor.
    const fNode = (n.name ? fByName.get(n.name) : undefined) ?? fIndex.producer.get(n.output[0]);
    const fn = fNode !== undefined ? fIndex.nodes[fNode] : undefined;
    const fWeight = fn ? fIndex.initializers.get(fn.input[1]) : undefined;
    if (!fn || fn.op_type !== op || !fWeight) {
      skip('no matching float node with a constant weight');
      continue;
    }
    const dims = w.codes.dims.map(Number);
    const fw = readTensorAsFloat32(fWeight);
    if (fw.length !== dims.reduce((a, b) => a * b, 1)) {
      skip('float and quantized weights differ in size');
      continue;
    }
    const scales = readTensorAsFloat32(w.scale);
    const zps = w.zp ? Int32Array.from(readTensor(w.zp) as ArrayLike<number>) : new Int32Array(scales.length);
    let outChannels: number,
      groups = 1,
      inPerGroup: number,
      weightIndex: (m: number, k: number) => number,
      channelAxisIsOutput: boolean;
    let conv: ConvGeometry | undefined;
    const form = linearFormProblem(n, dims);
    if (form) {
      skip(form);
      continue;
    }
    if (op === 'Conv') {
      // A 1-D convolution (audio: Silero's STFT and encoder) is a 2-D one of height 1: [M, C, K] is [M, C, 1, K] in
      // the same memory, and its input [N, C, W] is [N, C, 1, W] (layerData.ts reads it so).
      const oneD = dims.length === 3;
      const along = <T>(values: readonly T[] | undefined, fill: T): T[] | undefined =>
        values && oneD ? [fill, values[0]] : values ? [...values] : undefined;
      groups = int(n, 'group', 1);
      outChannels = dims[0];
      const kernel: [number, number] = oneD ? [1, dims[2]] : [dims[2], dims[3]];
      inPerGroup = dims[1] * kernel[0] * kernel[1];
      weightIndex = (m, k) => m * inPerGroup + k;
      channelAxisIsOutput = w.axis === 0;
      const given = ints(n, 'pads');
      const pads = given && oneD ? [0, given[0], 0, given[1]] : (given ?? [0, 0, 0, 0]);
      conv = {
        kernel,
        strides: (along(ints(n, 'strides'), 1) ?? [1, 1]) as [number, number],
        dilations: (along(ints(n, 'dilations'), 1) ?? [1, 1]) as [number, number],
        pads: [pads[0], pads[1], pads[2], pads[3]],
        autoPad: n.attribute.find((a) => a.name === 'auto_pad')?.s
          ? new TextDecoder().decode(n.attribute.find((a) => a.name === 'auto_pad')!.s!)
          : 'NOTSET',
      };
    } else if (op === 'Gemm') {
      const transB = int(n, 'transB', 0) === 1;
      outChannels = transB ? dims[0] : dims[1];
      inPerGroup = transB ? dims[1] : dims[0];
      const K = inPerGroup,
        N = outChannels;
      weightIndex = transB ? (m, k) => m * K + k : (m, k) => k * N + m;
      channelAxisIsOutput = w.axis === (transB ? 0 : 1);
    } else {
      outChannels = dims[1];
      inPerGroup = dims[0];
      const N = outChannels;
      weightIndex = (m, k) => k * N + m;
      channelAxisIsOutput = w.axis === 1;
    }
    const perChannel = scales.length > 1;
    if (perChannel && !channelAxisIsOutput) {
      skip('per-channel weights along an input axis');
      continue;
    }
    const scaleOf = perChannel ? (m: number) => scales[m] : () => scales[0];
    const zeroPointOf = perChannel ? (m: number) => zps[m] : () => zps[0];

    let biasStore: BiasStore = { kind: 'none' };
    const bias = new Float32Array(outChannels);
    const biasName = op === 'MatMul' ? undefined : n.input[2];
    if (biasName) {
      const fb = qIndex.initializers.get(biasName);
      const qb = dequantizedConstant(qIndex, biasName);
      if (fb && fb.data_type === 1 && fb.dims.length === 1 && Number(fb.dims[0]) === outChannels) {
        bias.set(readTensorAsFloat32(fb));
        biasStore = { kind: 'float', name: biasName };
      } else if (
        qb &&
        quantTypeOf(qb.codes) &&
        qb.codes.dims.length === 1 &&
        Number(qb.codes.dims[0]) === outChannels
      ) {
        const bs = Float32Array.from(readTensorAsFloat32(qb.scale));
        const bz = qb.zp ? Int32Array.from(readTensor(qb.zp) as ArrayLike<number>) : undefined;
        const bc = readTensor(qb.codes) as ArrayLike<number>;
        for (let m = 0; m < outChannels; m++)
          bias[m] = (bc[m] - (bz ? bz[bs.length > 1 ? m : 0] : 0)) * bs[bs.length > 1 ? m : 0];
        biasStore = {
          kind: 'quantized',
          codes: qb.codes.name ?? '',
          scales: bs,
          zeroPoints: bz,
          type: quantTypeOf(qb.codes)!,
        };
      } else {
        skip('its bias is neither a float nor a quantized 1-D constant');
        continue;
      }
    }
    const floatBias = new Float32Array(outChannels);
    const fBiasTensor = op !== 'MatMul' && fn.input[2] ? fIndex.initializers.get(fn.input[2]) : undefined;
    if (fBiasTensor) {
      const fb = readTensorAsFloat32(fBiasTensor);
      if (fb.length === outChannels) floatBias.set(fb);
      else if (fb.length === 1) floatBias.fill(fb[0]);
    }
    layers.push({
      id,
      scope,
      floatBias,
      opType: op,
      node: i,
      output: n.output[0],
      floatInput: fn.input[0],
      quantInput: n.input[0],
      outChannels,
      groups,
      inPerGroup,
      weightIndex,
      conv,
      floatWeight: fw,
      bias,
      codesName: w.codes.name ?? '',
      codes: Int32Array.from(readTensor(w.codes) as ArrayLike<number>),
      type,
      scaleOf,
      zeroPointOf,
      biasStore,
    });
  }
}

/** What tuning changed in one layer: new weight codes and/or a new bias in real units. */
export interface LayerUpdate {
  readonly layer: LinearLayer;
  readonly codes?: Int32Array;
  readonly bias?: Float32Array;
}

/**
 * The QDQ model with the updates written in (the input is not modified). A bias on a quantized grid is rounded
 * to that grid and saturates at its type's range; a layer without a bias gets one on the int32 grid the quantizer
 * gives biases when its input is quantized, else a float one (MatMul cannot, and keeps none). Returns how many bias values saturated.
 */
export function applyLayerUpdates(
  quantModel: ModelProto,
  updates: readonly LayerUpdate[],
): { model: ModelProto; saturatedBiases: number } {
  const graph = quantModel.graph!;
  const replaced = new Map<string, TensorProto>();
  const added: TensorProto[] = [];
  const nodes = [...graph.node];
  let saturatedBiases = 0;
  // Initializers of every scope: a body layer's codes and bias are its branch's (names are unique across scopes).
  const byName = new Map<string, TensorProto>();
  forEachGraph(graph, (g) => g.initializer.forEach((t) => byName.set(t.name ?? '', t)));
  const taken = new Set([...byName.keys(), ...graph.node.flatMap((n) => n.output)]);
  const index = buildGraphIndex(graph);
  const biasNodes: NodeProto[] = [];
  for (const u of updates) {
    const l = u.layer;
    if (u.codes) {
      const old = byName.get(l.codesName)!;
      const ctor = QUANT_TYPES[l.type];
      replaced.set(
        l.codesName,
        makeTensor(l.codesName, ctor.onnxType, old.dims.map(Number), typedCodes(l.type, u.codes)),
      );
    }
    if (u.bias) {
      const s = l.biasStore;
      if (s.kind === 'float') replaced.set(s.name, makeTensor(s.name, 1, [l.outChannels], Float32Array.from(u.bias)));
      else if (s.kind === 'quantized') {
        const { min, max } = QUANT_TYPES[s.type];
        const codes = new Int32Array(l.outChannels);
        for (let m = 0; m < l.outChannels; m++) {
          const c = s.scales.length > 1 ? m : 0;
          const q = roundHalfToEven(u.bias[m] / s.scales[c]) + (s.zeroPoints ? s.zeroPoints[c] : 0);
          if (q < min || q > max) saturatedBiases++;
          codes[m] = Math.min(max, Math.max(min, q));
        }
        const old = byName.get(s.codes)!;
        replaced.set(
          s.codes,
          makeTensor(s.codes, QUANT_TYPES[s.type].onnxType, old.dims.map(Number), typedCodes(s.type, codes)),
        );
      } else if (l.opType !== 'MatMul' && !l.scope) {
        let name = `${l.id}_bias_corrected`;
        for (let k = 2; taken.has(name); k++) name = `${l.id}_bias_corrected_${k}`;
        taken.add(name);
        const at = nodes.findIndex((x) => x.output[0] === l.output);
        const n = nodes[at];
        const grid = int32BiasGrid(index, n, l);
        if (grid) {
          // On the int32 grid the quantizer gives biases (input scale × weight scale), through a DequantizeLinear:
          // a float bias on a QDQ Conv makes onnxruntime insert its own bias quantization, with Round, which
          // opsets before 11 do not have.
          const codes = new Int32Array(l.outChannels);
          for (let m = 0; m < l.outChannels; m++) {
            const q = roundHalfToEven(u.bias[m] / grid.scales[grid.scales.length > 1 ? m : 0]);
            if (q < INT32_MIN || q > INT32_MAX) saturatedBiases++;
            codes[m] = Math.min(INT32_MAX, Math.max(INT32_MIN, q));
          }
          const codesName = `${name}_quantized`;
          const scaleName = `${name}_scale`;
          taken.add(codesName).add(scaleName);
          added.push(makeTensor(codesName, QUANT_TYPES.int32.onnxType, [l.outChannels], codes));
          added.push(makeTensor(scaleName, 1, grid.scales.length > 1 ? [l.outChannels] : [], grid.scales));
          const axis = grid.scales.length > 1 ? [intAttribute('axis', 0)] : [];
          biasNodes.push(
            makeNode('DequantizeLinear', [codesName, scaleName], [name], `${name}_DequantizeLinear`, axis, grid.domain),
          );
        } else {
          added.push(makeTensor(name, 1, [l.outChannels], Float32Array.from(u.bias)));
        }
        nodes[at] = makeNode(
          n.op_type!,
          [n.input[0], n.input[1], name],
          [...n.output],
          n.name ?? '',
          n.attribute,
          n.domain ?? '',
        );
      }
    }
  }
  nodes.unshift(...biasNodes); // constants' DequantizeLinear first, as the writer places them
  const initializer = [...graph.initializer.map((t) => replaced.get(t.name ?? '') ?? t), ...added];
  const main = { ...graph, node: nodes, initializer };
  // Codes and biases of layers inside branches are rewritten where their branch holds them.
  const inBodies = updates.some((u) => u.layer.scope);
  return { model: { ...quantModel, graph: inBodies ? replaceTensors(main, replaced) : main }, saturatedBiases };
}

function typedCodes(type: QuantType, codes: Int32Array) {
  switch (type) {
    case 'int8':
      return Int8Array.from(codes);
    case 'uint8':
      return Uint8Array.from(codes);
    case 'int16':
      return Int16Array.from(codes);
    case 'uint16':
      return Uint16Array.from(codes);
    default:
      return Int32Array.from(codes);
  }
}
