/**
 * Conv → Mul/Add by constants folded into one convolution. A convolution is linear per output channel, so a
 * chain after it that multiplies or adds a constant per channel (a scalar, or a tensor broadcast along the
 * channel axis only) is one convolution with W'[c] = W[c] · s[c] and b'[c] = b[c] · s[c] + t[c], where
 * y = s · conv(x) + t is the chain's affine map. ONNX Runtime's basic graph optimizations (ConvMulFusion,
 * ConvAddFusion) make the same fold, and Quark and quantize_static optimize the model with them before they
 * quantize; without it every Mul and Add of the chain gets a Q/DQ pair of its own, each adding rounding noise
 * to what the hardware computes as one op. PaddlePaddle exports put a learnable scalar scale and bias
 * (PP-LCNetV3's LearnableAffineBlock) after most convolutions of the PP-OCRv4 models.
 *
 * Folded only when the result is certain: every node in the default domain; each tensor of the chain read by
 * the next node alone and not a graph output; the constant a float32 initializer that is not a graph input,
 * of rank at most the convolution's output rank, with every dimension 1 except, optionally, the channel
 * axis (so the output shape is unchanged); the convolution's weight (and bias) float32 initializers.
 * Arithmetic runs in float64 and is stored as float32. Main graph only. The convolution takes the chain's last
 * output name, so consumers and calibrated ranges keyed by that name are unchanged; the Mul/Add nodes are
 * recorded as absorbed into the convolution.
 */
import type { GraphIndex, ModelProto, NodeProto, TensorProto } from '../onnx/index.ts';
import { DataType, buildGraphIndex, isDefaultDomain, makeTensor } from '../onnx/index.ts';
import { applyConvFolds, floatInitializer } from './convFold.ts';
import { OriginRecorder, type NodeOrigin } from './nodeOrigin.ts';

export interface ConvAffineFoldResult {
  readonly model: ModelProto;
  readonly origin: NodeOrigin;
  /** Mul and Add nodes folded into convolutions. */
  readonly folded: number;
}

interface Chain {
  conv: NodeProto;
  steps: NodeProto[];
  /** Constant input of each step. */
  constants: string[];
  weight: TensorProto;
  bias: Float32Array;
}

/** Folds every eligible Conv → (Mul | Add by a per-channel constant)+ chain of the main graph. */
export function foldConvAffine(model: ModelProto): ConvAffineFoldResult {
  const graph = model.graph;
  const origin = new OriginRecorder();
  if (!graph) return { model: { ...model }, origin: origin.finish(), folded: 0 };
  const index = buildGraphIndex(graph);
  const graphOutputs = new Set(graph.output.map((v) => v.name ?? ''));
  const graphInputs = new Set(graph.input.map((v) => v.name ?? ''));

  const chains = new Map<NodeProto, Chain>();
  const absorbed = new Set<NodeProto>();
  for (const node of graph.node) {
    const chain = planChain(node, index, graphOutputs, graphInputs);
    if (!chain) continue;
    chains.set(node, chain);
    chain.steps.forEach((s) => absorbed.add(s));
  }
  if (chains.size === 0) {
    origin.keepGraph(graph);
    return { model: { ...model }, origin: origin.finish(), folded: 0 };
  }

  const rewritten = applyConvFolds(
    model,
    origin,
    '_affine',
    [...chains.values()].map((c) => ({
      conv: c.conv,
      weight: c.weight,
      bias: c.bias,
      output: c.steps[c.steps.length - 1].output[0],
      absorbed: c.steps,
      released: c.constants,
      removedOutputs: [c.conv.output[0], ...c.steps.slice(0, -1).map((s) => s.output[0])],
    })),
  );
  const folded = [...chains.values()].reduce((n, c) => n + c.steps.length, 0);
  return { model: rewritten, origin: origin.finish(), folded };
}

/** The chain after `conv` and its folded weights, or undefined when nothing folds (see the module note). */
function planChain(
  conv: NodeProto,
  index: GraphIndex,
  graphOutputs: Set<string>,
  graphInputs: Set<string>,
): Chain | undefined {
  if (conv.op_type !== 'Conv' || !isDefaultDomain(conv.domain) || conv.output.length !== 1) return undefined;
  const constant = (name: string) =>
    graphInputs.has(name) ? undefined : floatInitializer(index.initializers.get(name));
  const w = constant(conv.input[1]);
  if (!w || w.tensor.dims.length < 3) return undefined;
  const rank = w.tensor.dims.length;
  const channels = Number(w.tensor.dims[0]);
  let b: Float32Array = new Float32Array(channels);
  if (conv.input[2]) {
    const bias = constant(conv.input[2]);
    if (!bias || bias.values.length !== channels) return undefined;
    b = bias.values;
  }
  const scale = new Float64Array(channels).fill(1);
  const shift = new Float64Array(channels);
  const steps: NodeProto[] = [];
  const constants: string[] = [];
  let x = conv.output[0];
  for (;;) {
    if (!x || graphOutputs.has(x)) break;
    const readers = index.consumers.get(x) ?? [];
    if (readers.length !== 1) break;
    const next = index.nodes[readers[0]];
    if ((next.op_type !== 'Mul' && next.op_type !== 'Add') || !isDefaultDomain(next.domain)) break;
    if (next.input.length !== 2 || next.output.length !== 1 || !next.output[0]) break;
    const other = next.input[0] === x ? next.input[1] : next.input[1] === x ? next.input[0] : undefined;
    if (other === undefined || other === x) break;
    const c = constant(other);
    const perChannel = c && channelValues(c.tensor, c.values, rank, channels);
    if (!perChannel) break;
    for (let k = 0; k < channels; k++) {
      if (next.op_type === 'Mul') {
        scale[k] *= perChannel[k];
        shift[k] *= perChannel[k];
      } else shift[k] += perChannel[k];
    }
    steps.push(next);
    constants.push(other);
    x = next.output[0];
  }
  if (steps.length === 0) return undefined;
  const perOut = w.values.length / channels;
  const weights = new Float32Array(w.values.length);
  for (let i = 0; i < weights.length; i++) weights[i] = w.values[i] * scale[Math.floor(i / perOut)];
  const bias = new Float32Array(channels);
  for (let k = 0; k < channels; k++) bias[k] = b[k] * scale[k] + shift[k];
  return { conv, steps, constants, weight: makeTensor('', DataType.FLOAT, w.tensor.dims.map(Number), weights), bias };
}

/**
 * The constant's value per output channel when it broadcasts against an output of rank `rank` (N, C, spatial…)
 * along the channel axis only; undefined otherwise.
 */
function channelValues(t: TensorProto, values: Float32Array, rank: number, channels: number): Float32Array | undefined {
  const dims = t.dims.map(Number);
  if (dims.length > rank) return undefined;
  if (values.length === 1) return new Float32Array(channels).fill(values[0]);
  if (values.length !== channels) return undefined;
  // Aligned from the right, the channel axis (1 of `rank`) is dims' index dims.length − (rank − 1).
  const axis = dims.length - (rank - 1);
  if (axis < 0 || dims[axis] !== channels) return undefined;
  return dims.every((d, i) => i === axis || d === 1) ? values : undefined;
}
