/**
 * Sequential calibration: each activation's statistics gathered on the model with everything upstream of it
 * already quantized, so that its range absorbs the error the quantized layers before it add (the idea of
 * NNCF's and Quark's calibrations on a partly quantized model: a range chosen on float values fits values the
 * quantized model never produces). This module holds the plan of those passes; the runner (runner.ts) runs them.
 *
 * Bounded cost: the produced tensors are ordered by depth (longest path from a graph input) and cut into
 * SEQUENTIAL_GROUPS groups of about equal size. After the ordinary float pass, pass g quantizes the model with
 * the ranges known so far (groups before g final, the rest from the float pass) and gathers group g afresh;
 * its model is pruned to what group g depends on, so early passes run a fraction of the model. With G groups
 * the whole costs about 1 + (G + 1) / 2 runs of the model per sample, and the quantizer once per pass.
 * Within a group, a tensor below another of the same group sees it quantized at its float-pass range.
 *
 * Only tensors whose producer computes new values are gathered again. An op that copies, selects or moves the
 * values of a quantized input (Reshape, Transpose, Concat, Slice, MaxPool, Relu, …) outputs values on that
 * input's integer grid: a histogram of spikes, on which Entropy's threshold search clips far too much (on
 * UltraFace those ranges shrank to 0.3–0.7 of their float ones and the held-out cosine fell under MinMax's). Such
 * a tensor adds no error of its own to absorb, so its float-pass statistics stand.
 *
 * The value read for a tensor in the quantized model is its value before its own QuantizeLinear: the tensor of
 * the same name, or, for a graph output (whose name the quantizer gives to the DequantizeLinear output), the
 * input of the QuantizeLinear that feeds that DequantizeLinear. Tensors the quantizer folded away (a Conv output
 * folded with its Mul/Add) keep their float-pass statistics: nothing quantizes them.
 */
import type { ModelProto, NodeProto } from '../../onnx/model.ts';

/**
 * Ops whose outputs mix many input values (weighted sums, averages): on a quantized input their values are spread,
 * not spikes. Every other op applied to one quantized input (Div or Mul by a constant, Sigmoid, HardSigmoid, a
 * copy) outputs a function of that input's integer grid, a histogram of spikes again (on PP-OCRv4 gathering those
 * too fell to 0.81 per channel against Entropy's 0.96): only outputs of these ops are read on the quantized model.
 */
export const MIXING_OPS: ReadonlySet<string> = new Set([
  'Conv',
  'ConvTranspose',
  'Gemm',
  'MatMul',
  'AveragePool',
  'GlobalAveragePool',
  'ReduceMean',
  'ReduceSum',
]);

/** Ops whose outputs are copies, selections or rearrangements of input values (see the module note). */
export const VALUE_COPYING_OPS: ReadonlySet<string> = new Set([
  'Identity',
  'Reshape',
  'Transpose',
  'Flatten',
  'Squeeze',
  'Unsqueeze',
  'Concat',
  'Slice',
  'Split',
  'Gather',
  'GatherElements',
  'GatherND',
  'Pad',
  'Expand',
  'Tile',
  'DepthToSpace',
  'SpaceToDepth',
  'MaxPool',
  'ReduceMax',
  'ReduceMin',
  'Relu',
  'Clip',
  'Max',
  'Min',
]);

/**
 * The produced tensors that sequential passes gather: those computed from a graph input (not weights written as
 * Constant nodes, nor anything computed from weights alone: nothing upstream of them is quantized activation) by
 * an op that computes new values (not in VALUE_COPYING_OPS).
 */
export function computedTensors(model: ModelProto, produced: readonly string[]): string[] {
  const graph = model.graph!;
  const initializers = new Set(graph.initializer.map((t) => t.name ?? ''));
  const live = new Set(graph.input.map((v) => v.name ?? '').filter((n) => n && !initializers.has(n)));
  const gathered = new Set<string>();
  for (const node of graph.node) {
    if (!node.input.some((i) => i && live.has(i))) continue;
    for (const o of node.output) {
      if (!o) continue;
      live.add(o);
      if (!VALUE_COPYING_OPS.has(node.op_type ?? '')) gathered.add(o);
    }
  }
  return produced.filter((t) => gathered.has(t));
}

/** Groups of the produced tensors, each gathered in a pass of its own on the partly quantized model. */
export const SEQUENTIAL_GROUPS = 4;

/**
 * The produced tensors in `groups` groups of about equal size, by depth (a tensor's depth is one more than the
 * deepest input of its node; graph inputs and initializers are at depth 0). A tensor never precedes, in the
 * groups' order, a tensor it depends on. Empty groups are dropped.
 */
export function depthGroups(model: ModelProto, produced: readonly string[], groups = SEQUENTIAL_GROUPS): string[][] {
  const depth = new Map<string, number>();
  for (const node of model.graph!.node) {
    let d = 0;
    for (const i of node.input) if (i) d = Math.max(d, depth.get(i) ?? 0);
    for (const o of node.output) if (o) depth.set(o, d + 1);
  }
  const ordered = produced.map((t, i) => ({ t, d: depth.get(t) ?? 0, i })).sort((a, b) => a.d - b.d || a.i - b.i);
  const out: string[][] = [];
  const n = Math.max(1, Math.min(groups, ordered.length));
  for (let g = 0; g < n; g++) {
    const slice = ordered
      .slice(Math.round((g * ordered.length) / n), Math.round(((g + 1) * ordered.length) / n))
      .map((e) => e.t);
    if (slice.length > 0) out.push(slice);
  }
  return out;
}

/**
 * For each of `tensors`, the name of its value before its own quantization in `quantized` (see the module
 * note); tensors the quantized graph does not compute are left out.
 */
export function quantizedReadout(
  quantized: ModelProto,
  tensors: readonly string[],
  mixingOnly = true,
): Map<string, string> {
  const producer = new Map<string, NodeProto>();
  for (const node of quantized.graph!.node) for (const o of node.output) if (o) producer.set(o, node);
  const out = new Map<string, string>();
  for (const t of tensors) {
    const p = producer.get(t);
    if (!p) continue;
    let value = t;
    if (p.op_type === 'DequantizeLinear') {
      const q = producer.get(p.input[0] ?? '');
      if (q?.op_type !== 'QuantizeLinear' || !q.input[0]) continue;
      value = q.input[0];
    }
    // Read where the quantized graph mixes many values (after its folds: a Conv may now write a former Add's output).
    if (!mixingOnly || MIXING_OPS.has(producer.get(value)?.op_type ?? '')) out.set(t, value);
  }
  return out;
}
