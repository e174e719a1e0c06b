/**
 * MinMax statistics computed inside the calibration model (issue 33.5). Exposing every tensor as a graph output made
 * onnxruntime hand back the whole of each (PP-OCRv4's detector at 1024 × 1024: 673 tensors, 1.7 GB a run, three
 * times the plain run), only for the collector to keep two numbers of each. Here each observed tensor gets a
 * ReduceMin, a ReduceMax and its element count (ReduceProd of its Shape) in the graph (as ONNX Runtime's own MinMax
 * calibrater adds ReduceMin/ReduceMax), the outputs of ops that can make a NaN a ReduceSum too (nanChecks.ts), and
 * the sets of scalars come back concatenated: four small outputs a run. The reductions follow their tensor's
 * producer in the node list, so onnxruntime runs them while the tensor is fresh and frees it after.
 *
 * The collector leaves NaN and ±Infinity out of a tensor's extremes; a reduction does not say whether it met any
 * (onnxruntime 1.30's ReduceMin/ReduceMax drop a NaN or return it depending on where it lies, measured). A
 * tensor whose reduced minimum, maximum or sum is not finite (any NaN or infinity makes the sum so) is therefore
 * `suspect`: the caller reads its values in full for that run, and folds them as before; where the run does not
 * prove the tensors without a sum NaN-free (nanChecks.ts runProvesNanFree), they are read in full too. So the states
 * are those of the exposed path (minmax.ts `foldExtremes`).
 *
 * A Constant node's output holds the same values in every run: its extremes are taken once from its value (where
 * all are finite) and folded each run as the reductions' are, with no node added (some exporters give every weight
 * as a Constant: half the PP-OCR detector's tensors).
 *
 * A tensor whose extremes follow exactly from its producer's inputs' (a reshape, a Concat, Relu, Clip, an Add or Mul
 * by a constant...: derivedExtremes.ts) is not reduced either: each run derives them from its sources' reduced ones,
 * and reads it in full where a source is read in full.
 *
 * Only MinMax-type collectors (MinMax, NonOverflow) can take this path: the histogram methods (Percentile, Entropy,
 * MinMSE, ...) need every value.
 */
import { DataType, intAttribute, makeNode, type ModelProto, type NodeProto } from '../../onnx/model.ts';
import { makeTensor } from '../../onnx/tensorData.ts';
import type { RunTensor } from '../../runtime/session.ts';
import type { BatchExtremes } from '../collectors/minmax.ts';
import type { Feed } from '../../runtime/session.ts';
import { constantNodeTensor } from '../../onnx/constantNode.ts';
import { readTensorAsFloat32 } from '../../onnx/tensorData.ts';
import { scan } from '../histogram/scan.ts';
import { deriveRun, planDerivations, type Derivation } from './derivedExtremes.ts';
import { planNanChecks, runProvesNanFree, type NanChecks } from './nanChecks.ts';
import { canPackOutputs, concatTree, freshNames } from './packOutputs.ts';

export interface ReducedOutputs {
  model: ModelProto;
  /**
   * The four outputs, each one element a tensor in `tensors` order (sums: in `checks.checked` order, null where no
   * tensor is checked): float32 minima, maxima, sums; int64 sizes.
   */
  mins: string;
  maxs: string;
  sums: string | null;
  sizes: string;
  tensors: readonly string[];
  /** Which tensors get a sum, and what proves the others NaN-free. */
  checks: NanChecks;
  /** Constant nodes' outputs among the tensors asked for, with their extremes: not reduced, folded as they are. */
  constants: ReadonlyMap<string, BatchExtremes>;
  /** Tensors whose extremes each run derives from other tensors' (derivedExtremes.ts), in topological order. */
  derived: ReadonlyMap<string, Derivation>;
  /** Every tensor asked for, in the order given (a run's extremes come back in it). */
  asked: readonly string[];
}

/** Whether `reduceInGraph` can rewrite this model (Reshape takes its shape as an input from opset 5 on). */
export const canReduceInGraph = canPackOutputs;

/**
 * A copy of `model` whose only outputs are the minima, maxima, sums and element counts of `tensors` (float32
 * main-graph node outputs, as observableTensors gives them). Names added cannot clash with the model's own.
 */
export function reduceInGraph(model: ModelProto, asked: readonly string[]): ReducedOutputs {
  if (!canReduceInGraph(model)) throw new RangeError('reduceInGraph needs ai.onnx opset 5 or later');
  if (asked.length === 0) throw new RangeError('reduceInGraph needs at least one tensor');
  const graph = model.graph!;
  const constants = constantExtremes(model, asked);
  const derived = planDerivations(model, asked, new Set(constants.keys()));
  const tensors = asked.filter((t) => !constants.has(t) && !derived.has(t));
  // Everything asked is a constant or derived: one tensor is still reduced, so the session runs (and proves it loads).
  if (tensors.length === 0) {
    const first = asked.find((t) => !constants.has(t)) ?? asked[0];
    tensors.push(first);
    constants.delete(first);
    derived.delete(first);
  }
  const fresh = freshNames(graph, 'qs_reduce');
  const one = fresh('one');
  const nodes: NodeProto[] = [];
  // Each tensor's reductions, placed right after its producer: run there, they let onnxruntime free the tensor when
  // its own consumers are done (placed at the end, every tensor stayed alive to the last node).
  const after = new Map<string, NodeProto[]>();
  const checks = planNanChecks(model, tensors, new Set(derived.keys()));
  const checked = new Set(checks.checked);
  const parts = { mins: [] as string[], maxs: [] as string[], sums: [] as string[], sizes: [] as string[] };
  /**
   * `op` of `input` over all axes (no axes given, in every opset) to a scalar, made [1] for the Concat, placed after
   * tensor `t`'s producer.
   */
  const reduced = (
    t: string,
    op: string,
    input: string,
    into: string[],
    attributes = [intAttribute('keepdims', 0)],
  ) => {
    const scalar = fresh(op);
    const vector = fresh(`${op}_1`);
    if (!after.has(t)) after.set(t, []);
    after
      .get(t)!
      .push(
        makeNode(op, [input], [scalar], fresh(`${op}_node`), attributes),
        makeNode('Reshape', [scalar, one], [vector], fresh('reshape')),
      );
    into.push(vector);
  };
  for (const t of tensors) {
    reduced(t, 'ReduceMin', t, parts.mins);
    reduced(t, 'ReduceMax', t, parts.maxs);
    if (checked.has(t)) reduced(t, 'ReduceSum', t, parts.sums);
    // The element count as the product of the shape, not Size: Shape's kernel on a GPU reads the tensor's shape
    // alone (its output lives on the CPU), where a Size a GPU provider lacks would copy the tensor back to count it.
    const shape = fresh('Shape');
    after.get(t)!.push(makeNode('Shape', [t], [shape], fresh('Shape_node')));
    reduced(t, 'ReduceProd', shape, parts.sizes);
  }
  const placed: NodeProto[] = [];
  for (const n of graph.node) {
    placed.push(n);
    for (const o of n.output) placed.push(...(after.get(o) ?? []));
  }
  // Reductions of a tensor no node of the graph produces (none expected) come last.
  const produced = new Set(graph.node.flatMap((n) => n.output));
  for (const [t, list] of after) if (!produced.has(t)) placed.push(...list);
  const mins = concatTree(nodes, parts.mins, 'mins', fresh);
  const maxs = concatTree(nodes, parts.maxs, 'maxs', fresh);
  const sums = parts.sums.length > 0 ? concatTree(nodes, parts.sums, 'sums', fresh) : null;
  const sizes = concatTree(nodes, parts.sizes, 'sizes', fresh);
  return {
    model: {
      ...model,
      graph: {
        ...graph,
        node: [...placed, ...nodes],
        initializer: [...graph.initializer, makeTensor(one, DataType.INT64, [1], BigInt64Array.of(1n))],
        output: [mins, maxs, sums, sizes].flatMap((name) => (name ? [{ name, metadata_props: [] }] : [])),
      },
    },
    mins,
    maxs,
    sums,
    sizes,
    tensors,
    checks,
    constants,
    derived,
    asked,
  };
}

/** The extremes of those of `tensors` that are Constant nodes' float32 outputs with every value finite. */
function constantExtremes(model: ModelProto, tensors: readonly string[]): Map<string, BatchExtremes> {
  const wanted = new Set(tensors);
  const out = new Map<string, BatchExtremes>();
  for (const node of model.graph!.node) {
    const name = node.output[0];
    if (node.op_type !== 'Constant' || node.domain || !wanted.has(name)) continue;
    const value = constantNodeTensor(node);
    if (value?.data_type !== DataType.FLOAT) continue;
    let values: Float32Array;
    try {
      values = readTensorAsFloat32(value);
    } catch {
      continue;
    }
    const e = scan(values);
    if (e.nonFinite > 0) continue;
    out.set(
      name,
      values.length === 0
        ? { min: 0, max: 0, count: 0, nonFinite: 0 }
        : { min: e.min, max: e.max, count: values.length, nonFinite: 0 },
    );
  }
  return out;
}

/** A reduced run read back: each tensor's extremes, and the tensors whose values must be read in full (see above). */
export interface ReducedRun {
  extremes: Map<string, BatchExtremes>;
  suspect: string[];
}

/**
 * The reduced run's outputs per tensor. `feeds`: the run's feeds, which the proof that unchecked tensors hold no NaN
 * may need (without them, those tensors are suspect whenever it does).
 */
export function readReduced(
  reduced: Pick<ReducedOutputs, 'mins' | 'maxs' | 'sums' | 'sizes' | 'tensors' | 'checks'> &
    Partial<Pick<ReducedOutputs, 'constants' | 'derived' | 'asked'>>,
  outputs: Readonly<Record<string, RunTensor>>,
  feeds?: Readonly<Record<string, Feed>>,
): ReducedRun {
  const mins = outputs[reduced.mins]?.data;
  const maxs = outputs[reduced.maxs]?.data;
  const sums = reduced.sums === null ? new Float32Array(0) : outputs[reduced.sums]?.data;
  const sizes = outputs[reduced.sizes]?.data;
  const n = reduced.tensors.length;
  if (
    !(mins instanceof Float32Array && maxs instanceof Float32Array && sums instanceof Float32Array) ||
    !(sizes instanceof BigInt64Array) ||
    [mins, maxs, sizes].some((a) => a.length !== n) ||
    sums.length !== reduced.checks.checked.length
  ) {
    throw new Error('the reduced outputs are missing or do not match the tensors reduced');
  }
  const sumOf = new Map(reduced.checks.checked.map((t, i) => [t, sums[i]]));
  const extremes = new Map<string, BatchExtremes>(reduced.constants ?? []);
  const suspect: string[] = [];
  for (let i = 0; i < n; i++) {
    const count = Number(sizes[i]);
    const t = reduced.tensors[i];
    // An empty tensor gets its state (as a folded empty batch does: it adds nothing), whatever its reductions say.
    if (count === 0) extremes.set(t, { min: 0, max: 0, count: 0, nonFinite: 0 });
    else if (Number.isFinite(mins[i]) && Number.isFinite(maxs[i]) && Number.isFinite(sumOf.get(t) ?? 0)) {
      extremes.set(t, { min: mins[i], max: maxs[i], count, nonFinite: 0 });
    } else suspect.push(t);
  }
  // Derived tensors from the others' extremes: each is read in full where a source is.
  const derivations = reduced.derived ?? new Map<string, Derivation>();
  const derive = () => {
    const run = deriveRun(derivations, extremes);
    for (const [t, e] of run.derived) extremes.set(t, e);
    return run.suspect;
  };
  // In the order asked, constants and derived tensors among the others.
  const asked = reduced.asked ?? reduced.tensors;
  const inOrder = () => {
    const out = new Map<string, BatchExtremes>();
    for (const t of asked) if (extremes.has(t)) out.set(t, extremes.get(t)!);
    return out;
  };
  const derivedSuspect = derive();
  const bad = suspect.length + derivedSuspect.length;
  if (reduced.checks.unchecked.length === 0 || runProvesNanFree(reduced.checks, extremes, bad, feeds)) {
    const read = new Set([...suspect, ...derivedSuspect]);
    return { extremes: inOrder(), suspect: asked.filter((t) => read.has(t)) };
  }
  // Nothing proves the tensors without a sum NaN-free: they are read in full with the suspect ones, and so are the
  // tensors derived from them.
  const doubtful = new Set([...suspect, ...reduced.checks.unchecked]);
  for (const t of [...doubtful, ...derivations.keys()]) extremes.delete(t);
  for (const t of derive()) doubtful.add(t);
  return { extremes: inOrder(), suspect: asked.filter((t) => doubtful.has(t)) };
}
