/**
 * Conv (or ConvTranspose) → BatchNormalization pairs folded into one convolution. In inference a
 * BatchNormalization is a per-channel affine map, y = (x − mean) · γ/√(var + ε) + β (BatchNormalization-15,
 * training_mode = 0), and the convolution before it is linear per output channel, so the pair is one
 * convolution with W'[c] = W[c] · s[c] and b'[c] = (b[c] − mean[c]) · s[c] + β[c], s = γ/√(var + ε).
 * Quantizing the folded weights is what runtimes execute anyway; quantizing the unfolded pair would put
 * a Q/DQ between two ops that are really one and lose accuracy.
 *
 * Folded only when the result is certain: both nodes in the default domain, the convolution's output read
 * by that BatchNormalization alone and not a graph output, the BatchNormalization in inference form (one
 * output, no training_mode, spatial absent or 1), and W, b, γ, β, mean and var float32 initializers of the
 * right sizes, none of them also a graph input (the caller could replace it at run time; before IR 4 every
 * initializer is one, which removeInitializerInputs.ts undoes first). Arithmetic runs in float64 and is
 * stored as float32, so outputs change only by float rounding. Main graph only. The convolution (a copy with new weight inputs) takes the BatchNormalization's
 * output name, so consumers and graph outputs are unchanged; the BatchNormalization is recorded as
 * absorbed into the convolution. Weights shared with other nodes are left in place and the folded ones get
 * new names; weights no node reads any more are dropped.
 */
import type { GraphIndex, ModelProto, NodeProto, TensorProto } from '../onnx/index.ts';
import { DataType, buildGraphIndex, isDefaultDomain, makeTensor } from '../onnx/index.ts';
import { floatOf, intOf } from './attributes.ts';
import { applyConvFolds, floatInitializer } from './convFold.ts';
import { OriginRecorder, type NodeOrigin } from './nodeOrigin.ts';

export interface FoldResult {
  readonly model: ModelProto;
  readonly origin: NodeOrigin;
  /** Number of BatchNormalization nodes folded, by the op type they were folded into. */
  readonly folded: Readonly<Record<string, number>>;
}

/** BatchNormalization's default epsilon (BatchNormalization-15 schema). */
const DEFAULT_EPSILON = 1e-5;

interface Fold {
  conv: NodeProto;
  bn: NodeProto;
  weight: TensorProto;
  bias: Float32Array;
}

/** Folds every eligible Conv/ConvTranspose → BatchNormalization pair of the main graph. */
export function foldBatchNorm(model: ModelProto): FoldResult {
  const graph = model.graph;
  const origin = new OriginRecorder();
  if (!graph) return { model: { ...model }, origin: origin.finish(), folded: {} };
  const index = buildGraphIndex(graph);
  const graphOutputs = new Set(graph.output.map((v) => v.name ?? ''));
  const graphInputs = new Set(graph.input.map((v) => v.name ?? ''));

  const folds = new Map<NodeProto, Fold>();
  for (const bn of graph.node) {
    const fold = planFold(bn, index, graphOutputs, graphInputs);
    if (fold) folds.set(fold.conv, fold);
  }
  if (folds.size === 0) {
    origin.keepGraph(graph);
    return { model: { ...model }, origin: origin.finish(), folded: {} };
  }

  const rewritten = applyConvFolds(
    model,
    origin,
    '_bn',
    [...folds.values()].map((f) => ({
      conv: f.conv,
      weight: f.weight,
      bias: f.bias,
      output: f.bn.output[0],
      absorbed: [f.bn],
      released: f.bn.input.slice(1),
      removedOutputs: [f.conv.output[0]],
    })),
  );
  const folded: Record<string, number> = {};
  for (const { conv } of folds.values()) folded[conv.op_type ?? ''] = (folded[conv.op_type ?? ''] ?? 0) + 1;
  return { model: rewritten, origin: origin.finish(), folded };
}

/** The fold for `bn`, or undefined when any condition of the module comment fails. */
function planFold(
  bn: NodeProto,
  index: GraphIndex,
  graphOutputs: Set<string>,
  graphInputs: Set<string>,
): Fold | undefined {
  if (bn.op_type !== 'BatchNormalization' || !isDefaultDomain(bn.domain)) return undefined;
  if (bn.output.slice(1).some((o) => o) || !bn.output[0] || bn.input.length !== 5) return undefined;
  if ((intOf(bn, 'training_mode') ?? 0) !== 0 || (intOf(bn, 'spatial') ?? 1) !== 1) return undefined;
  // A weight that is also a graph input can be replaced when the model runs: it is not a constant.
  const weight = (name: string) => (graphInputs.has(name) ? undefined : floatInitializer(index.initializers.get(name)));
  const x = bn.input[0];
  const p = index.producer.get(x);
  if (p === undefined) return undefined;
  const conv = index.nodes[p];
  if ((conv.op_type !== 'Conv' && conv.op_type !== 'ConvTranspose') || !isDefaultDomain(conv.domain)) return undefined;
  if (conv.output[0] !== x || graphOutputs.has(x) || (index.consumers.get(x)?.length ?? 0) !== 1) return undefined;

  const w = weight(conv.input[1]);
  if (!w || w.tensor.dims.length < 3) return undefined;
  const dims = w.tensor.dims.map(Number);
  const group = intOf(conv, 'group') ?? 1;
  const channels = conv.op_type === 'Conv' ? dims[0] : dims[1] * group;
  const params = bn.input.slice(1).map(weight);
  if (params.some((t) => !t || t.tensor.dims.length !== 1 || t.values.length !== channels)) return undefined;
  const [gamma, beta, mean, variance] = params.map((t) => t!.values);
  let b: Float32Array = new Float32Array(channels);
  if (conv.input[2]) {
    const bias = weight(conv.input[2]);
    if (!bias || bias.values.length !== channels) return undefined;
    b = bias.values;
  }

  const epsilon = floatOf(bn, 'epsilon') ?? DEFAULT_EPSILON;
  const factor = new Float64Array(channels);
  for (let c = 0; c < channels; c++) factor[c] = gamma[c] / Math.sqrt(variance[c] + epsilon);

  const weights = new Float32Array(w.values.length);
  const inner = dims.slice(2).reduce((a, d) => a * d, 1);
  if (conv.op_type === 'Conv') {
    // W is (M × C/group × k…): output channel = index along dim 0.
    const perChannel = w.values.length / channels;
    for (let i = 0; i < weights.length; i++) weights[i] = w.values[i] * factor[Math.floor(i / perChannel)];
  } else {
    // ConvTranspose W is (C × M/group × k…): output channel = group · (M/group) + index along dim 1.
    const inPerGroup = dims[0] / group;
    const outPerGroup = dims[1];
    for (let i = 0; i < weights.length; i++) {
      const j = Math.floor(i / inner) % outPerGroup;
      const ci = Math.floor(i / (inner * outPerGroup));
      weights[i] = w.values[i] * factor[Math.floor(ci / inPerGroup) * outPerGroup + j];
    }
  }
  const bias = new Float32Array(channels);
  for (let c = 0; c < channels; c++) bias[c] = (b[c] - mean[c]) * factor[c] + beta[c];
  return { conv, bn, weight: makeTensor('', DataType.FLOAT, dims, weights), bias };
}
