/**
 * Tensors whose extremes follow exactly from their producer's input extremes, so the calibration model reduces
 * them not at all (reduceInGraph.ts, issue 33.5: each ReduceMin/ReduceMax reads its tensor again).
 *
 * A reshape, transpose, Identity or Cast to float32 keeps its input's values (a Cast's input asked is float32 too:
 * a float16 model's float32 form keeps its Casts); a Concat holds its inputs' values; a non-decreasing element-wise
 * op f has min f(min) and max f(max) (a non-increasing one swaps them). That is exact only where
 * onnxruntime computes f(x) as JavaScript does below on every element, so the rules are limited to ops made of one
 * or two correctly rounded float32 operations or a choice between values: Relu, Clip and LeakyRelu, HardSigmoid
 * (alpha·x + beta, two roundings: onnxruntime rounds twice, no fused multiply-add, measured equal on node and wasm),
 * and Add, Sub, Mul, Div with a one-element constant (float64 then float32 rounding of a float32 sum, product or
 * quotient is the float32 operation's). Sigmoid and Tanh are left out: onnxruntime's kernels approximate them
 * (MLAS polynomials), and nothing promises JavaScript's result or monotonicity at the last bit.
 *
 * NaN: every op here makes no NaN from finite inputs (the constants are finite, a divisor is not zero), so a
 * tensor derived from sources proven NaN-free is NaN-free too; where a source is not known in a run (suspect: read
 * in full) or the derived extremes overflow to ±∞, the derived tensor is read in full as well (`deriveRun`).
 */
import { DataType, opsetOf, type ModelProto, type NodeProto } from '../../onnx/model.ts';
import { graphConstants } from '../../onnx/constantNode.ts';
import { readTensorAsFloat32 } from '../../onnx/tensorData.ts';
import { buildGraphIndex } from '../../onnx/graphIndex.ts';
import type { BatchExtremes } from '../collectors/minmax.ts';

/** How one tensor's extremes follow from its sources'. */
export interface Derivation {
  /** The op it applies (for counts and messages). */
  readonly op: string;
  /** Tensors whose extremes it needs, each one asked for in the same calibration model. */
  readonly sources: readonly string[];
  /** The tensor's extremes from its sources' (finite, non-empty or counted as empty; in `sources` order). */
  readonly derive: (sources: readonly BatchExtremes[]) => BatchExtremes;
}

const EMPTY: BatchExtremes = { min: 0, max: 0, count: 0, nonFinite: 0 };

/** Through f, non-decreasing (or non-increasing where `increasing` is false) on the finite values. */
function monotone(op: string, source: string, f: (x: number) => number, increasing = true): Derivation {
  return {
    op,
    sources: [source],
    derive: ([e]) =>
      e.count === 0
        ? EMPTY
        : {
            min: f(increasing ? e.min : e.max),
            max: f(increasing ? e.max : e.min),
            count: e.count,
            nonFinite: 0,
          },
  };
}

const concat = (sources: readonly string[]): Derivation => ({
  op: 'Concat',
  sources,
  derive: (es) => {
    const filled = es.filter((e) => e.count > 0);
    if (filled.length === 0) return EMPTY;
    return {
      min: Math.min(...filled.map((e) => e.min)),
      max: Math.max(...filled.map((e) => e.max)),
      count: es.reduce((s, e) => s + e.count, 0),
      nonFinite: 0,
    };
  },
});

const ARITHMETIC: ReadonlySet<string> = new Set(['Add', 'Sub', 'Mul', 'Div']);

/** Ops whose output holds exactly its first input's values (the other inputs are shapes, axes or permutations). */
const SAME_VALUES: ReadonlySet<string> = new Set([
  'Identity',
  'Reshape',
  'Flatten',
  'Squeeze',
  'Unsqueeze',
  'Transpose',
]);

/**
 * Whether `node`'s output holds exactly its first input's values where that input is float32: a reshape, transpose,
 * Identity, or a Cast to float32 (of float32, as a float16 model's float32 form has them, a copy).
 */
export function holdsInputValues(node: NodeProto): boolean {
  const op = node.op_type ?? '';
  if (SAME_VALUES.has(op)) return true;
  return op === 'Cast' && Number(node.attribute.find((a) => a.name === 'to')?.i) === DataType.FLOAT;
}

const FLOAT32_MAX = 3.4028234663852886e38;
const f32 = Math.fround;
const floatAttr = (node: NodeProto, name: string, fallback: number) => {
  const a = node.attribute.find((x) => x.name === name);
  return a?.f ?? fallback;
};

/**
 * The tensors among `asked` (float32 node outputs) whose extremes can be derived, in topological order, each from
 * tensors of `asked` that come before it. `constants`: asked tensors whose extremes are known without a run
 * (Constant nodes' outputs).
 */
export function planDerivations(
  model: ModelProto,
  asked: readonly string[],
  constants: ReadonlySet<string> = new Set(),
): Map<string, Derivation> {
  const graph = model.graph!;
  const opset = opsetOf(model) ?? 1;
  const wanted = new Set(asked);
  const constantValues = graphConstants(graph);
  /** The one finite float32 value of a constant, or undefined. */
  const scalar = (name: string): number | undefined => {
    const t = constantValues.get(name);
    if (t?.data_type !== DataType.FLOAT) return undefined;
    try {
      const v = readTensorAsFloat32(t);
      return v.length === 1 && Number.isFinite(v[0]) ? v[0] : undefined;
    } catch {
      return undefined;
    }
  };
  const out = new Map<string, Derivation>();
  // The tensors seen so far among those asked (each will have extremes in a run, reduced or derived).
  const seen = new Set<string>(constants);
  const known = (name: string) => seen.has(name);
  // In topological order: a float16 model's float32 form (ISNet's) need not list its nodes in it.
  const nodes = graph.node;
  for (const i of buildGraphIndex(graph).order) {
    const node = nodes[i];
    for (const o of node.output) if (wanted.has(o)) seen.add(o);
    const output = node.output[0];
    if (node.output.length !== 1 || !wanted.has(output) || constants.has(output)) continue;
    if (node.domain && node.domain !== 'ai.onnx') continue;
    const d = rule(node, opset, known, scalar);
    if (d) out.set(output, d);
  }
  return out;
}

function rule(
  node: NodeProto,
  opset: number,
  known: (name: string) => boolean,
  scalar: (name: string) => number | undefined,
): Derivation | undefined {
  const op = node.op_type ?? '';
  const [x] = node.input;
  if (holdsInputValues(node)) return known(x) ? monotone(op, x, (v) => v) : undefined;
  if (op === 'Concat') return node.input.length > 0 && node.input.every(known) ? concat(node.input) : undefined;
  if (node.input.length === 2 && ARITHMETIC.has(op)) {
    const [a, b] = node.input;
    const [ca, cb] = [scalar(a), scalar(b)];
    if (cb !== undefined && ca === undefined && known(a)) {
      if (op === 'Add') return monotone(op, a, (v) => f32(v + cb));
      if (op === 'Sub') return monotone(op, a, (v) => f32(v - cb));
      if (op === 'Mul') return monotone(op, a, (v) => f32(v * cb), cb >= 0);
      return cb === 0 ? undefined : monotone(op, a, (v) => f32(v / cb), cb > 0);
    }
    // The constant first: Add(c, x), Mul(c, x), Sub(c, x); c / x is not monotone across 0.
    if (ca !== undefined && cb === undefined && known(b)) {
      if (op === 'Add') return monotone(op, b, (v) => f32(ca + v));
      if (op === 'Mul') return monotone(op, b, (v) => f32(ca * v), ca >= 0);
      if (op === 'Sub') return monotone(op, b, (v) => f32(ca - v), false);
    }
    return undefined;
  }
  if (node.input.length !== 1 && op !== 'Clip') return undefined;
  if (!known(x)) return undefined;
  if (op === 'Relu') return monotone(op, x, (v) => (v > 0 ? v : 0));
  if (op === 'LeakyRelu') {
    const alpha = f32(floatAttr(node, 'alpha', 0.01));
    if (!(alpha >= 0)) return undefined;
    return monotone(op, x, (v) => (v >= 0 ? v : f32(alpha * v)));
  }
  if (op === 'HardSigmoid') {
    const alpha = f32(floatAttr(node, 'alpha', 0.2));
    const beta = f32(floatAttr(node, 'beta', 0.5));
    if (!Number.isFinite(alpha) || !Number.isFinite(beta)) return undefined;
    return monotone(op, x, (v) => Math.max(Math.min(f32(f32(alpha * v) + beta), 1), 0), alpha >= 0);
  }
  if (op === 'Clip') {
    let lo = -FLOAT32_MAX;
    let hi = FLOAT32_MAX;
    if (opset < 11) {
      lo = floatAttr(node, 'min', lo);
      hi = floatAttr(node, 'max', hi);
    } else {
      for (const [i, set] of [
        [1, (v: number) => (lo = v)],
        [2, (v: number) => (hi = v)],
      ] as const) {
        const name = node.input[i];
        if (!name) continue;
        const v = scalar(name);
        if (v === undefined) return undefined;
        set(v);
      }
    }
    if (Number.isNaN(lo) || Number.isNaN(hi)) return undefined;
    return monotone(op, x, (v) => Math.min(Math.max(v, lo), hi));
  }
  return undefined;
}

/** A run's derived extremes, and the derived tensors to read in full (a source not known, or ±∞ reached). */
export function deriveRun(
  derivations: ReadonlyMap<string, Derivation>,
  extremes: ReadonlyMap<string, BatchExtremes>,
): { derived: Map<string, BatchExtremes>; suspect: string[] } {
  const derived = new Map<string, BatchExtremes>();
  const suspect: string[] = [];
  const of = (t: string) => extremes.get(t) ?? derived.get(t);
  for (const [t, d] of derivations) {
    const sources = d.sources.map(of);
    const e = sources.every((s) => s !== undefined) ? d.derive(sources as BatchExtremes[]) : undefined;
    if (e && Number.isFinite(e.min) && Number.isFinite(e.max)) derived.set(t, e);
    else suspect.push(t);
  }
  return { derived, suspect };
}
