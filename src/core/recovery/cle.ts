/**
 * Cross-layer equalization (Nagel et al. 2019, "Data-Free Quantization Through Weight Equalization and Bias
 * Correction", §4.1; Quark include_cle): for two convolutions in a row, with at most a positively homogeneous
 * activation between them (f(x/s) = f(x)/s for s > 0: Relu, LeakyRelu), output channel i of the first layer is
 * divided by s_i and input channel i of the second multiplied by s_i, with s_i = √(r1_i·r2_i) / r2_i (eq. 8) so
 * that both channels end with the range √(r1_i·r2_i). The float function is unchanged; per-tensor weight grids
 * waste less of their range on channels that were much smaller than the widest one.
 *
 * Grouped and depthwise convolutions take part (a depthwise layer's channel i is its row i). Pairs whose
 * activation is not positively homogeneous (SiLU, Sigmoid, HardSwish, Clip with a ceiling, ...) are skipped
 * and listed. Pairs inside If/Loop/Scan bodies (Silero VAD keeps all its Convs in one If) are equalized like the
 * main graph's. Only weight values change (initializers, a body's Constant weights); nodes, names and ids stay as
 * they are. Pure: no runtime.
 */
import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import { isDefaultDomain, type ModelProto, type NodeId, type NodeProto, type TensorProto } from '../onnx/model.ts';
import { makeTensor, readTensorAsFloat32 } from '../onnx/tensorData.ts';
import { forEachGraph, replaceTensors } from '../onnx/walk.ts';
import { scopedBodies } from '../quantize/bodyViews.ts';

/** Activations that commute with a positive per-channel scale. */
const HOMOGENEOUS = new Set(['Relu', 'LeakyRelu']);
/** Elementwise activations that do not: a pair through one of them is listed as skipped. */
const NOT_HOMOGENEOUS = new Set([
  'Sigmoid',
  'HardSigmoid',
  'HardSwish',
  'Clip',
  'Tanh',
  'Elu',
  'Selu',
  'Celu',
  'Softplus',
  'Softsign',
  'Gelu',
  'Mish',
  'ThresholdedRelu',
  'PRelu',
]);

export interface ClePair {
  readonly first: NodeId;
  readonly second: NodeId;
  /** The op between them, or null for Conv→Conv. */
  readonly activation: string | null;
}

export interface SkippedPair {
  readonly first: NodeId;
  readonly second: NodeId;
  readonly reason: string;
}

export interface CleOptions {
  /** Passes over all pairs (Quark CLESteps). */
  readonly steps: number;
  /** Stop when a pass moves Σ|s_i − 1| over all channels below this (Quark CLETotalLayerDiffThreshold). */
  readonly totalDiffThreshold: number;
  /** Count |bias_i| in the first layer's channel range (Quark CLEScaleAppendBias). */
  readonly scaleAppendBias: boolean;
  /** Equalize pairs inside If/Loop/Scan bodies too: where the quantizer enters them (EnableSubgraph). Default false. */
  readonly bodies?: boolean;
}

export interface CleReport {
  readonly pairs: readonly ClePair[];
  readonly skipped: readonly SkippedPair[];
  /** Passes made (≤ steps). */
  readonly steps: number;
  /** Σ|s_i − 1| of each pass. */
  readonly totalDiff: readonly number[];
  /** Largest ratio of widest to narrowest output-channel range of a first layer, before and after. */
  readonly worstChannelSpread: { readonly before: number; readonly after: number };
  readonly seconds: number;
}

interface PairPlan {
  readonly a: number;
  readonly b: number;
  readonly activation: string | null;
}

const attrInt = (n: NodeProto, name: string, fallback: number) => {
  const a = n.attribute.find((x) => x.name === name);
  return a?.i !== undefined && a.i !== null ? Number(a.i) : fallback;
};

function isConvWithWeight(index: GraphIndex, i: number): boolean {
  const n = index.nodes[i];
  if (n.op_type !== 'Conv' || !isDefaultDomain(n.domain)) return false;
  const w = index.initializers.get(n.input[1]);
  if (!w || w.data_type !== 1 || w.dims.length < 3) return false;
  const bias = n.input[2];
  if (bias && index.initializers.get(bias)?.data_type !== 1) return false;
  return true;
}

/** The single consumer of a tensor that is not a graph output, else undefined. */
function soleConsumer(index: GraphIndex, tensor: string): number | undefined {
  if (index.outputs.some((o) => o.name === tensor)) return undefined;
  const c = index.consumers.get(tensor) ?? [];
  return c.length === 1 ? c[0] : undefined;
}

/** How many nodes (and graph outputs) read a tensor: of one graph, or of every scope of a model (modelReaders). */
export type TensorReaders = (name: string) => number;

/** Whether an initializer is read by exactly one node (CLE rewrites it in place). */
function ownedBy(index: GraphIndex, name: string | undefined, readers?: TensorReaders): boolean {
  return !name || (readers ? readers(name) : (index.consumers.get(name) ?? []).length) === 1;
}

/** Readers of each tensor across the main graph and every subgraph: a weight an If branch also reads is shared. */
export function modelReaders(model: ModelProto): TensorReaders {
  const count = new Map<string, number>();
  const add = (name: string) => count.set(name, (count.get(name) ?? 0) + 1);
  forEachGraph(model.graph!, (g) => {
    for (const n of g.node) n.input.forEach((t) => t && add(t));
    for (const o of g.output) add(o.name ?? '');
  });
  return (name) => count.get(name) ?? 0;
}

/**
 * Conv→Conv and Conv→act→Conv pairs of the graph, and the pairs CLE must leave alone with the reason. `readers`: who
 * reads a weight across the model's scopes (default: this graph's nodes alone).
 */
export function findClePairs(
  index: GraphIndex,
  readers?: TensorReaders,
): { pairs: PairPlan[]; skipped: SkippedPair[] } {
  const pairs: PairPlan[] = [];
  const skipped: SkippedPair[] = [];
  for (const a of index.order) {
    if (!isConvWithWeight(index, a)) continue;
    const na = index.nodes[a];
    const out = na.output[0];
    const consumers = index.consumers.get(out) ?? [];
    let activation: string | null = null;
    let b: number | undefined;
    let blocked: string | undefined;
    if (consumers.length === 2) {
      // SiLU as exporters write it: x · Sigmoid(x).
      const ops = consumers.map((c) => index.nodes[c].op_type);
      const mul = consumers.find((c) => index.nodes[c].op_type === 'Mul');
      if (ops.includes('Sigmoid') && mul !== undefined) {
        const next = soleConsumer(index, index.nodes[mul].output[0]);
        if (next !== undefined && isConvWithWeight(index, next))
          skipped.push({
            first: index.ids[a],
            second: index.ids[next],
            reason: 'SiLU (x·sigmoid(x)) between them is not positively homogeneous',
          });
      }
      continue;
    }
    const c = soleConsumer(index, out);
    if (c === undefined) continue;
    const nc = index.nodes[c];
    if (isConvWithWeight(index, c)) b = c;
    else if (
      nc.op_type &&
      (HOMOGENEOUS.has(nc.op_type) || NOT_HOMOGENEOUS.has(nc.op_type)) &&
      isDefaultDomain(nc.domain) &&
      nc.input[0] === out
    ) {
      const next = soleConsumer(index, nc.output[0]);
      if (next === undefined || !isConvWithWeight(index, next) || nc.output.length !== 1) continue;
      activation = nc.op_type;
      b = next;
      if (!HOMOGENEOUS.has(nc.op_type)) blocked = `${nc.op_type} between them is not positively homogeneous`;
    }
    if (b === undefined) continue;
    const nb = index.nodes[b];
    const wa = index.initializers.get(na.input[1])!;
    const wb = index.initializers.get(nb.input[1])!;
    if (!blocked && Number(wb.dims[1]) * attrInt(nb, 'group', 1) !== Number(wa.dims[0]))
      blocked = 'channel counts do not match';
    if (
      !blocked &&
      (!ownedBy(index, na.input[1], readers) ||
        !ownedBy(index, na.input[2], readers) ||
        !ownedBy(index, nb.input[1], readers))
    )
      blocked = 'a weight is shared with another node';
    if (!blocked && pairs.some((p) => p.b === b)) blocked = 'the second layer already pairs with another';
    if (blocked) skipped.push({ first: index.ids[a], second: index.ids[b], reason: blocked });
    else pairs.push({ a, b, activation });
  }
  return { pairs, skipped };
}

/** A conv weight being equalized: data plus the layout CLE needs. */
interface ConvWeights {
  readonly w: Float32Array;
  readonly bias: Float32Array | undefined;
  readonly outChannels: number;
  readonly inPerGroup: number;
  readonly spatial: number;
  readonly groups: number;
}

function channelSpread(l: ConvWeights): number {
  let hi = 0;
  let lo = Infinity;
  const row = l.inPerGroup * l.spatial;
  for (let m = 0; m < l.outChannels; m++) {
    let r = 0;
    for (let k = 0; k < row; k++) r = Math.max(r, Math.abs(l.w[m * row + k]));
    if (r > 0) lo = Math.min(lo, r);
    hi = Math.max(hi, r);
  }
  return lo === Infinity ? 1 : hi / lo;
}

/** One CLE update of a pair; returns Σ|s_i − 1|. */
function equalizePair(a: ConvWeights, b: ConvWeights, appendBias: boolean): number {
  const rowA = a.inPerGroup * a.spatial;
  const outPerGroupB = b.outChannels / b.groups;
  let diff = 0;
  for (let i = 0; i < a.outChannels; i++) {
    let r1 = 0;
    for (let k = 0; k < rowA; k++) r1 = Math.max(r1, Math.abs(a.w[i * rowA + k]));
    if (appendBias && a.bias) r1 = Math.max(r1, Math.abs(a.bias[i]));
    const g = Math.floor(i / b.inPerGroup);
    const l = i % b.inPerGroup;
    let r2 = 0;
    for (let m = g * outPerGroupB; m < (g + 1) * outPerGroupB; m++) {
      const base = (m * b.inPerGroup + l) * b.spatial;
      for (let k = 0; k < b.spatial; k++) r2 = Math.max(r2, Math.abs(b.w[base + k]));
    }
    if (!(r1 > 0) || !(r2 > 0)) continue; // a dead channel: nothing to balance
    const s = Math.sqrt(r1 * r2) / r2; // Nagel eq. (8)
    diff += Math.abs(s - 1);
    for (let k = 0; k < rowA; k++) a.w[i * rowA + k] /= s;
    if (a.bias) a.bias[i] /= s;
    for (let m = g * outPerGroupB; m < (g + 1) * outPerGroupB; m++) {
      const base = (m * b.inPerGroup + l) * b.spatial;
      for (let k = 0; k < b.spatial; k++) b.w[base + k] *= s;
    }
  }
  return diff;
}

/** One graph CLE works in: the main graph (prefix '') or an If/Loop/Scan body seen as the quantizer sees it. */
interface CleScope {
  readonly index: GraphIndex;
  /** Prefix of its nodes' scoped ids (`if/then_branch/`). */
  readonly prefix: string;
}

/**
 * Equalizes every pair CLE may touch, in the main graph and, with `options.bodies`, inside If/Loop/Scan bodies (a
 * body's pairs are named by scoped id, `if/then_branch/conv1`; a weight read anywhere else in the model is left alone); returns a new model
 * (the input is not modified) and what was done. A body weight held in a Constant node is rewritten there, one read
 * from an enclosing scope where it is an initializer.
 */
export function crossLayerEqualize(model: ModelProto, options: CleOptions): { model: ModelProto; report: CleReport } {
  const start = performance.now();
  const readers = modelReaders(model);
  const scopes: CleScope[] = [
    { index: buildGraphIndex(model.graph!), prefix: '' },
    ...(options.bodies ? scopedBodies(model).map((b) => ({ index: b.index, prefix: b.prefix })) : []),
  ];
  const pairs: { scope: CleScope; plan: PairPlan }[] = [];
  const skipped: SkippedPair[] = [];
  for (const scope of scopes) {
    const found = findClePairs(scope.index, readers);
    pairs.push(...found.pairs.map((plan) => ({ scope, plan })));
    skipped.push(
      ...found.skipped.map((k) => ({
        ...k,
        first: `${scope.prefix}${k.first}` as NodeId,
        second: `${scope.prefix}${k.second}` as NodeId,
      })),
    );
  }
  const layers = new Map<string, { scope: CleScope; node: number; weights: ConvWeights }>();
  const layer = (scope: CleScope, i: number): ConvWeights => {
    const key = `${scope.prefix}\u0000${i}`;
    const known = layers.get(key);
    if (known) return known.weights;
    const { index } = scope;
    const n = index.nodes[i];
    const wt = index.initializers.get(n.input[1])!;
    const dims = wt.dims.map(Number);
    const biasT = n.input[2] ? index.initializers.get(n.input[2]) : undefined;
    const l: ConvWeights = {
      w: Float32Array.from(readTensorAsFloat32(wt)),
      bias: biasT ? Float32Array.from(readTensorAsFloat32(biasT)) : undefined,
      outChannels: dims[0],
      inPerGroup: dims[1],
      spatial: dims.slice(2).reduce((x, y) => x * y, 1),
      groups: attrInt(n, 'group', 1),
    };
    layers.set(key, { scope, node: i, weights: l });
    return l;
  };
  const spreadBefore = Math.max(1, ...pairs.map((p) => channelSpread(layer(p.scope, p.plan.a))));
  const totalDiff: number[] = [];
  for (let step = 0; step < options.steps && pairs.length > 0; step++) {
    let diff = 0;
    for (const p of pairs)
      diff += equalizePair(layer(p.scope, p.plan.a), layer(p.scope, p.plan.b), options.scaleAppendBias);
    totalDiff.push(diff);
    if (diff < options.totalDiffThreshold) break;
  }
  const spreadAfter = Math.max(1, ...pairs.map((p) => channelSpread(layer(p.scope, p.plan.a))));

  const replaced = new Map<string, TensorProto>();
  for (const { scope, node, weights: l } of layers.values()) {
    const n = scope.index.nodes[node];
    const wt = scope.index.initializers.get(n.input[1])!;
    replaced.set(n.input[1], makeTensor(n.input[1], 1, wt.dims.map(Number), l.w));
    if (l.bias) replaced.set(n.input[2], makeTensor(n.input[2], 1, [l.bias.length], l.bias));
  }
  return {
    model: { ...model, graph: replaceTensors(model.graph!, replaced) },
    report: {
      pairs: pairs.map(({ scope, plan }) => ({
        first: `${scope.prefix}${scope.index.ids[plan.a]}` as NodeId,
        second: `${scope.prefix}${scope.index.ids[plan.b]}` as NodeId,
        activation: plan.activation,
      })),
      skipped,
      steps: totalDiff.length,
      totalDiff,
      worstChannelSpread: { before: spreadBefore, after: spreadAfter },
      seconds: (performance.now() - start) / 1000,
    },
  };
}
