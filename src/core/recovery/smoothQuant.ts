/**
 * SmoothQuant (Xiao et al. 2023, "SmoothQuant: Accurate and Efficient Post-Training Quantization for Large
 * Language Models"; Quark's include_sq with SmoothAlpha): activations of transformer blocks carry a few
 * channels of much larger magnitude than the rest, which one per-tensor scale cannot serve; weights do not.
 * Dividing activation channel j by s_j = max|X_j|^α / max|W_j|^(1−α) and multiplying the weight's input row j
 * by s_j moves that difficulty into the weights (quantized per channel on the other axis, or simply less
 * spread) while X·W stays the same.
 *
 * The division must be folded into whatever produced X, or X's outliers would still be quantized: here into
 * a LayerNormalization's γ and β, a written-out LayerNorm's trailing Mul(γ) [→ Add(β)], or a MatMul/Gemm with a
 * constant weight [→ Add(bias)] (its output columns). X must feed only MatMul/Gemm nodes with constant weights
 * (as input A), so every reader of X is compensated. A graph transform on the prepared float model (weights
 * as initializers), made before calibration; the float outputs do not change beyond rounding. The channel
 * maxima come from running the model (channelAbsMax, runtime injected); must not import a runtime.
 */
import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import type { ModelProto, NodeProto, TensorProto } from '../onnx/model.ts';
import { makeTensor, readTensorAsFloat32 } from '../onnx/tensorData.ts';
import { exposeTensors } from '../calibrate/run/expose.ts';
import { sessionModel } from '../onnx/externalize.ts';
import type { ComparisonRuntime } from '../evaluate/compareModels.ts';

/** Where the channel division of one smoothed tensor is folded: the constants divided (channels on their last axis). */
interface Fold {
  /** Per-channel constants that are divided by s (γ, β, a bias). */
  readonly divide: readonly string[];
  /** Weights whose output columns (last axis; first for Gemm transB) are divided by s. */
  readonly columns: readonly { readonly name: string; readonly axis: number }[];
}

export interface SmoothCandidate {
  /** The activation tensor whose channels (last axis) are smoothed. */
  readonly tensor: string;
  readonly channels: number;
  /** The weights that read it: each with the axis of its input channels. */
  readonly weights: readonly { readonly name: string; readonly axis: number }[];
  readonly fold: Fold;
}

export interface SmoothQuantReport {
  readonly alpha: number;
  /** Tensors smoothed, with the largest and smallest factor applied. */
  readonly tensors: readonly {
    readonly tensor: string;
    readonly channels: number;
    readonly minScale: number;
    readonly maxScale: number;
  }[];
}

const attr = (node: NodeProto, name: string, fallback: number) => {
  const a = node.attribute.find((x) => x.name === name);
  return a?.i !== undefined && a.i !== null ? Number(a.i) : fallback;
};

function constant(index: GraphIndex, name: string | undefined): TensorProto | undefined {
  return name ? index.initializers.get(name) : undefined;
}

/** A constant holding one value per channel on the last axis (a [K] vector, or [1, …, K]), or a scalar (not foldable). */
function perChannelConstant(index: GraphIndex, name: string, channels: number): boolean {
  const t = constant(index, name);
  if (!t || t.data_type !== 1) return false;
  const dims = t.dims.map(Number);
  return dims.length >= 1 && dims[dims.length - 1] === channels && dims.slice(0, -1).every((d) => d === 1);
}

/** The one consumer of a tensor, when it has exactly one and the tensor is not a graph output. */
function soleConsumer(index: GraphIndex, tensor: string, outputs: ReadonlySet<string>): number | undefined {
  const c = index.consumers.get(tensor) ?? [];
  return c.length === 1 && !outputs.has(tensor) ? c[0] : undefined;
}

/** How X = `tensor` (K channels) can absorb a division by s, from its producer; undefined when it cannot. */
function foldOf(index: GraphIndex, tensor: string, channels: number, outputs: ReadonlySet<string>): Fold | undefined {
  const p = index.producer.get(tensor);
  if (p === undefined) return undefined;
  const node = index.nodes[p];
  const op = node.op_type ?? '';
  const constIndex = (n: NodeProto) => n.input.findIndex((i) => constant(index, i));
  if (op === 'LayerNormalization') {
    const gamma = node.input[1];
    if (!perChannelConstant(index, gamma, channels)) return undefined;
    const beta = node.input[2];
    return { divide: beta ? [gamma, beta] : [gamma], columns: [] };
  }
  // Linear producer: X = A·W (+ b): divide W's output columns (and b).
  const linear = (n: NodeProto): Fold | undefined => {
    const w = constant(index, n.input[1]);
    if (!w || w.data_type !== 1) return undefined;
    if (n.op_type === 'MatMul' && w.dims.length === 2 && Number(w.dims[1]) === channels)
      return { divide: [], columns: [{ name: n.input[1], axis: 1 }] };
    if (n.op_type === 'Gemm') {
      const transB = attr(n, 'transB', 0) === 1;
      const axis = transB ? 0 : 1;
      if (w.dims.length !== 2 || Number(w.dims[axis]) !== channels) return undefined;
      const c = n.input[2];
      if (c && !perChannelConstant(index, c, channels)) return undefined;
      return { divide: c ? [c] : [], columns: [{ name: n.input[1], axis }] };
    }
    return undefined;
  };
  if (op === 'MatMul' || op === 'Gemm') return linear(node);
  if (op === 'Add' || op === 'Mul') {
    const k = constIndex(node);
    if (k < 0 || !perChannelConstant(index, node.input[k], channels)) return undefined;
    const other = node.input[1 - k];
    if (op === 'Mul') return { divide: [node.input[k]], columns: [] };
    // Add(β): the division must reach what β is added to: Mul(γ) or a linear op, read by this Add alone.
    const q = index.producer.get(other);
    if (q === undefined || soleConsumer(index, other, outputs) !== p) return undefined;
    const inner = index.nodes[q];
    if (inner.op_type === 'Mul') {
      const j = constIndex(inner);
      if (j < 0 || !perChannelConstant(index, inner.input[j], channels)) return undefined;
      return { divide: [inner.input[j], node.input[k]], columns: [] };
    }
    const l = inner.op_type === 'MatMul' ? linear(inner) : undefined;
    return l ? { divide: [...l.divide, node.input[k]], columns: l.columns } : undefined;
  }
  return undefined;
}

/** Activation tensors SmoothQuant can work on: read only by MatMul/Gemm with constant weights, with a producer that absorbs the division. */
export function smoothQuantCandidates(model: ModelProto): SmoothCandidate[] {
  const index = buildGraphIndex(model.graph!);
  const outputs = new Set(index.outputs.map((o) => o.name ?? ''));
  const seen = new Set<string>();
  const found: SmoothCandidate[] = [];
  for (const i of index.order) {
    const node = index.nodes[i];
    if (node.op_type !== 'MatMul' && node.op_type !== 'Gemm') continue;
    const x = node.input[0];
    if (seen.has(x) || outputs.has(x)) continue;
    seen.add(x);
    const weights: { name: string; axis: number }[] = [];
    let channels = -1;
    const ok = (index.consumers.get(x) ?? []).every((c) => {
      const n = index.nodes[c];
      const w = constant(index, n.input[1]);
      if (n.input[0] !== x || n.input[1] === x || !w || w.data_type !== 1 || w.dims.length !== 2) return false;
      if (n.op_type === 'Gemm' && attr(n, 'transA', 0) !== 0) return false;
      if (n.op_type !== 'MatMul' && n.op_type !== 'Gemm') return false;
      const axis = n.op_type === 'Gemm' && attr(n, 'transB', 0) === 1 ? 1 : 0;
      const k = Number(w.dims[axis]);
      if (channels >= 0 && k !== channels) return false;
      channels = k;
      weights.push({ name: n.input[1], axis });
      return true;
    });
    if (!ok || channels <= 0) continue;
    const fold = foldOf(index, x, channels, outputs);
    if (!fold) continue;
    found.push({ tensor: x, channels, weights, fold });
  }
  // A constant read by another node would change that node too: skip those. Two candidates may scale the same
  // weight (rows for one, columns for the other): the factors compose.
  const readers = (name: string) => index.consumers.get(name)?.length ?? 0;
  return found.filter((c) =>
    [...c.weights.map((w) => w.name), ...c.fold.divide, ...c.fold.columns.map((w) => w.name)].every(
      (n) => readers(n) === 1,
    ),
  );
}

/** Per-channel (last axis) maxima of |x| of `tensors` over the runtime's samples. */
export async function channelAbsMax(
  model: ModelProto,
  tensors: readonly string[],
  runtime: ComparisonRuntime,
): Promise<Map<string, Float32Array>> {
  const out = new Map<string, Float32Array>();
  if (tensors.length === 0) return out;
  const session = await runtime.open(sessionModel(exposeTensors(model, tensors)));
  try {
    for (let s = 0; s < runtime.samples; s++) {
      const run = await session.run(s, tensors);
      for (const t of tensors) {
        const r = run[t];
        if (!r || r.type !== 'float32') continue;
        const data = r.data as Float32Array;
        const k = r.dims[r.dims.length - 1];
        let m = out.get(t);
        if (!m) out.set(t, (m = new Float32Array(k)));
        for (let i = 0; i < data.length; i++) {
          const v = Math.abs(data[i]);
          if (v > m[i % k]) m[i % k] = v;
        }
      }
    }
  } finally {
    await session.release();
  }
  return out;
}

/** Scales each constant's slices along `axis` (per channel c) by f(c). */
function scaleAlong(t: TensorProto, axis: number, f: (c: number) => number): TensorProto {
  const data = Float32Array.from(readTensorAsFloat32(t));
  const dims = t.dims.map(Number);
  const inner = dims.slice(axis + 1).reduce((a, b) => a * b, 1);
  const n = dims[axis];
  for (let i = 0; i < data.length; i++) data[i] *= f(Math.floor(i / inner) % n);
  return makeTensor(t.name ?? '', 1, dims, data);
}

/**
 * The smoothed model: for each candidate with statistics, s_j = max|X_j|^α / max|W_j|^(1−α) (1 where either is
 * 0), weights' input rows multiplied by s, the producer's constants divided by it.
 */
export function applySmoothQuant(
  model: ModelProto,
  candidates: readonly SmoothCandidate[],
  absMax: ReadonlyMap<string, Float32Array>,
  alpha: number,
): { model: ModelProto; report: SmoothQuantReport } {
  const index = buildGraphIndex(model.graph!);
  const replaced = new Map<string, TensorProto>();
  const current = (name: string) => replaced.get(name) ?? constant(index, name)!;
  const tensors: SmoothQuantReport['tensors'][number][] = [];
  for (const c of candidates) {
    const xMax = absMax.get(c.tensor);
    if (!xMax || xMax.length !== c.channels) continue;
    const wMax = new Float32Array(c.channels);
    for (const w of c.weights) {
      const t = current(w.name);
      const data = readTensorAsFloat32(t);
      const dims = t.dims.map(Number);
      const inner = dims.slice(w.axis + 1).reduce((a, b) => a * b, 1);
      for (let i = 0; i < data.length; i++) {
        const ch = Math.floor(i / inner) % dims[w.axis];
        wMax[ch] = Math.max(wMax[ch], Math.abs(data[i]));
      }
    }
    const s = new Float64Array(c.channels);
    for (let j = 0; j < c.channels; j++) {
      const v = xMax[j] > 0 && wMax[j] > 0 ? xMax[j] ** alpha / wMax[j] ** (1 - alpha) : 1;
      s[j] = Number.isFinite(v) ? Math.min(1e4, Math.max(1e-4, v)) : 1;
    }
    for (const w of c.weights)
      replaced.set(
        w.name,
        scaleAlong(current(w.name), w.axis, (j) => s[j]),
      );
    for (const name of c.fold.divide) {
      const t = current(name);
      replaced.set(
        name,
        scaleAlong(t, t.dims.length - 1, (j) => 1 / s[j]),
      );
    }
    for (const col of c.fold.columns)
      replaced.set(
        col.name,
        scaleAlong(current(col.name), col.axis, (j) => 1 / s[j]),
      );
    tensors.push({ tensor: c.tensor, channels: c.channels, minScale: Math.min(...s), maxScale: Math.max(...s) });
  }
  const initializer = model.graph!.initializer.map((t) => replaced.get(t.name ?? '') ?? t);
  return { model: { ...model, graph: { ...model.graph!, initializer } }, report: { alpha, tensors } };
}
