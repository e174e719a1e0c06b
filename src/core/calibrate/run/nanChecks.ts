/**
 * Which reduced tensors need their own NaN check in the calibration model (reduceInGraph.ts), and when a run proves
 * the others free of NaN without one (issue 33.5: the ReduceSum that caught NaN read every tensor a third time).
 *
 * ReduceMin and ReduceMax show every infinity but may drop a NaN, so a tensor's extremes alone do not prove it
 * holds none. Most ops cannot make a NaN from finite inputs: a sum or product of two finite values is finite or
 * infinite, never NaN; Relu, Clip, Sigmoid, Resize by nearest, a reshape or a concatenation only move, clamp or
 * squash them. A NaN first appears at an op that can make one (Div by a tensor, Log, Sqrt, a Conv whose products
 * overflow to +∞ and −∞...) or comes in with the feeds. So only the outputs of ops outside the list below get a
 * ReduceSum (NaN or ±∞ anywhere makes it non-finite). A run proves every unchecked tensor NaN-free when:
 * no reduced tensor is suspect (extremes and checked sums finite), the float feeds are finite, and each unchecked
 * Conv, ConvTranspose or linear Resize could not overflow: |input| × Σ|weights| + |bias| far below float32's
 * largest value, from the input's reduced extremes. By induction over the graph's order, the first tensor holding
 * a NaN would be a checked one. Where a run proves nothing, the unchecked tensors are read in full, as suspect ones are.
 */
import { DataType, type ModelProto, type NodeProto } from '../../onnx/model.ts';
import { opsetOf } from '../../onnx/model.ts';
import { inferElementTypes } from '../../onnx/elementTypeInference.ts';
import { readTensorAsFloat32 } from '../../onnx/tensorData.ts';
import { graphConstants } from '../../onnx/constantNode.ts';
import type { Feed } from '../../runtime/session.ts';
import type { BatchExtremes } from '../collectors/minmax.ts';

/** Ops whose output holds no NaN when every input is finite (element-wise arithmetic that cannot give ∞ − ∞ or 0 × ∞, clamps, moves). */
const NAN_FREE_OPS: ReadonlySet<string> = new Set([
  'Add',
  'Sub',
  'Mul',
  'Max',
  'Min',
  'Neg',
  'Abs',
  'Relu',
  'LeakyRelu',
  'PRelu',
  'Clip',
  'Sigmoid',
  'HardSigmoid',
  'HardSwish',
  'Tanh',
  'Exp',
  'Identity',
  'Reshape',
  'Flatten',
  'Transpose',
  'Squeeze',
  'Unsqueeze',
  'Concat',
  'Slice',
  'Split',
  'Gather',
  'MaxPool',
  'GlobalMaxPool',
]);

/** A largest |value| a sum of products may reach with no partial sum near float32's overflow (3.4e38), with margin. */
const PRODUCT_LIMIT = 1e30;

/** An unchecked sum of products: NaN-free in a run where |input| × bound + bias stays under PRODUCT_LIMIT. */
export interface BoundedProduct {
  readonly input: string;
  /** Σ|weights| over the whole weight tensor (an upper bound on any output's), or the resize weights' bound. */
  readonly bound: number;
  readonly bias: number;
}

export interface NanChecks {
  /** The tensors that get their own ReduceSum, in the order given. */
  readonly checked: readonly string[];
  /** The others (proven NaN-free by a clean run), in the order given. */
  readonly unchecked: readonly string[];
  /** Graph inputs the unchecked tensors' proof relies on: their feeds must be finite. */
  readonly feeds: readonly string[];
  readonly products: readonly BoundedProduct[];
}

/** The largest |value| of `data`, or Infinity where one is not finite. */
function largestAbs(data: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < data.length; i++) {
    const v = Math.abs(data[i]);
    if (!(v <= m)) m = v <= Infinity ? v : Infinity;
  }
  return m;
}

/**
 * Which of `tensors` (float32 node outputs reduced in the graph) need a NaN check of their own. `derived`: tensors
 * not reduced whose extremes a run derives from other tensors' by ops that make no NaN (derivedExtremes.ts): NaN-free
 * where their sources are, so known as the reduced ones are.
 */
export function planNanChecks(
  model: ModelProto,
  tensors: readonly string[],
  derived: ReadonlySet<string> = new Set(),
): NanChecks {
  const graph = model.graph!;
  const reduced = new Set(tensors);
  const types = inferElementTypes(graph, { opset: opsetOf(model) ?? 1 });
  const graphInputs = new Set(graph.input.map((v) => v.name ?? ''));
  // Constants: initializers, and Constant nodes' values (some exporters give every weight as one).
  const initializers = graphConstants(graph);
  const constantAbs = new Map<string, number>();
  /** |largest| of a float initializer; Infinity where it is not finite or cannot be read (external data). */
  const constant = (name: string): number => {
    let m = constantAbs.get(name);
    if (m === undefined) {
      try {
        m = largestAbs(readTensorAsFloat32(initializers.get(name)!));
      } catch {
        m = Infinity;
      }
      constantAbs.set(name, m);
    }
    return m;
  };
  const isFloat = (name: string) => {
    const t = types.get(name);
    return (
      t === undefined ||
      t === DataType.FLOAT ||
      t === DataType.FLOAT16 ||
      t === DataType.DOUBLE ||
      t === DataType.BFLOAT16
    );
  };
  const feedsUsed = new Set<string>();
  /** Whether a NaN in `name` is ruled out by the run's other facts (its own check, the feeds' check, finite constants). */
  const known = (name: string): boolean => {
    if (!name) return true;
    if (initializers.has(name)) return !isFloat(name) || constant(name) < Infinity;
    if (reduced.has(name) || derived.has(name)) return true;
    if (graphInputs.has(name)) {
      // float32 feeds are checked in the run (runProvesNanFree); other float types are not read.
      if (types.get(name) !== DataType.FLOAT) return !isFloat(name);
      feedsUsed.add(name);
      return true;
    }
    return !isFloat(name);
  };
  const products: BoundedProduct[] = [];
  const provable = (node: NodeProto): boolean => {
    const op = node.op_type ?? '';
    if (node.domain && node.domain !== 'ai.onnx') return false;
    // A Constant's value is known here: finite, it holds no NaN in any run.
    if (op === 'Constant') return known(node.output[0]) && constant(node.output[0]) < Infinity;
    if (!node.input.every(known)) return false;
    if (NAN_FREE_OPS.has(op)) return true;
    if (op === 'Div') {
      // A constant divisor with no zero: finite / nonzero is finite or infinite.
      const d = node.input[1];
      if (!initializers.has(d) || constant(d) === Infinity) return false;
      const values = readTensorAsFloat32(initializers.get(d)!);
      return values.every((v) => v !== 0);
    }
    if ((op === 'Conv' || op === 'ConvTranspose') && initializers.has(node.input[1])) {
      const w = readTensorAsFloat32(initializers.get(node.input[1])!);
      let sum = 0;
      for (const v of w) sum += Math.abs(v);
      const bias = node.input[2] ? constant(node.input[2]) : 0;
      if (!(sum < Infinity) || bias === Infinity) return false;
      products.push({ input: node.input[0], bound: sum, bias });
      return true;
    }
    if (op === 'BatchNormalization' && node.output.length === 1) {
      // (x − mean) / √(var + ε) × scale + B: with |x| bounded, every step finite (ε and var constant, var + ε > 0).
      const [scale, bias, mean, variance] = node.input.slice(1).map((n) => readTensorAsFloat32(initializers.get(n)!));
      if (![scale, bias, mean, variance].every((t) => largestAbs(t) < Infinity)) return false;
      const epsilon = node.attribute.find((a) => a.name === 'epsilon')?.f ?? 1e-5;
      let gain = 1;
      for (let c = 0; c < variance.length; c++) {
        if (!(variance[c] + epsilon > 0)) return false;
        gain = Math.max(gain, Math.abs(scale[c % scale.length]) / Math.sqrt(variance[c] + epsilon));
      }
      const shift = largestAbs(mean);
      products.push({ input: node.input[0], bound: gain, bias: gain * shift + shift + largestAbs(bias) });
      return true;
    }
    if (op === 'Resize') {
      const mode = node.attribute.find((a) => a.name === 'mode');
      const coordinates = node.attribute.find((a) => a.name === 'coordinate_transformation_mode');
      const text = (a: typeof mode) => (a?.s ? new TextDecoder().decode(a.s) : '');
      if (text(coordinates) === 'tf_crop_and_resize') return false;
      if (text(mode) === '' || text(mode) === 'nearest') return true;
      // Linear and cubic: each output a weighted sum of at most 64 inputs, weights under 2 in magnitude.
      products.push({ input: node.input[0], bound: 128, bias: 0 });
      return true;
    }
    return false;
  };
  const uncheckedSet = new Set<string>();
  for (const node of graph.node) {
    if (!node.output.some((o) => reduced.has(o))) continue;
    let proven = false;
    try {
      proven = provable(node);
    } catch {
      // a weight that cannot be read here (external data): the output is checked
    }
    if (proven) for (const o of node.output) if (reduced.has(o)) uncheckedSet.add(o);
  }
  return {
    checked: tensors.filter((t) => !uncheckedSet.has(t)),
    unchecked: tensors.filter((t) => uncheckedSet.has(t)),
    feeds: [...feedsUsed],
    products,
  };
}

/**
 * Whether this run proves every unchecked tensor NaN-free: no suspect tensor, finite float feeds, every bounded
 * product under its limit. `extremes` holds the reduced tensors that were not suspect.
 */
export function runProvesNanFree(
  checks: NanChecks,
  extremes: ReadonlyMap<string, BatchExtremes>,
  suspect: number,
  feeds: Readonly<Record<string, Feed>> | undefined,
): boolean {
  if (suspect > 0) return false;
  const feedAbs = new Map<string, number>();
  for (const name of checks.feeds) {
    const f = feeds?.[name];
    if (!f || !(f.data instanceof Float32Array)) return false;
    const m = largestAbs(f.data);
    if (m === Infinity) return false;
    feedAbs.set(name, m);
  }
  for (const p of checks.products) {
    const e = extremes.get(p.input);
    const input = e ? Math.max(Math.abs(e.min), Math.abs(e.max)) : feedAbs.get(p.input);
    if (input === undefined || !(input * p.bound + p.bias < PRODUCT_LIMIT)) return false;
  }
  return true;
}
