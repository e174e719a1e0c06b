/**
 * Element-wise functions written out as several nodes, found so that they are quantized as the one op
 * they stand for: LayerNormalization as ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div/Mul/Add, HardSwish as
 * Add(3)/Clip/Mul/Div(6), Swish as Sigmoid/Mul, GELU as Div/Erf/Add/Mul/Mul, a scale-and-shift as Mul/Add.
 * Exporters at older opsets (paddle2onnx, torch before opset 17) write these out; an NPU runs each as one
 * fused op, and ONNX Runtime's and Quark's quantizers see them fused (ORT's LayerNorm/Gelu fusions,
 * Quark's NPU transformer flow), with Q/DQ at the function's input and output only. Quantizing every
 * intermediate instead rounds values no hardware ever materialises, and some of them badly: HardSwish's
 * x·clip(x + 3) spans 6× the range of its output, a LayerNorm's squared deviations the square of it.
 *
 * A function is a region of nodes computing one tensor from one tensor: it starts at a float tensor x,
 * takes in every consumer whose op is element-wise (or a mean over axes) and whose inputs are x,
 * constants or the region's own outputs, and keeps the region only where exactly one of its tensors
 * leaves it (its output), none of the others is read outside it, and it has at least two nodes. Pure
 * graph analysis: decides nothing about types and edits nothing.
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import { isDefaultDomain } from '../onnx/model.ts';

/** Ops a written-out function may consist of: element-wise on one tensor, and ReduceMean (a LayerNorm's statistics). */
const FUNCTION_OPS = new Set([
  'Add',
  'Sub',
  'Mul',
  'Div',
  'Pow',
  'Sqrt',
  'Reciprocal',
  'Erf',
  'Sigmoid',
  'HardSigmoid',
  'Tanh',
  'Clip',
  'Relu',
  'ReduceMean',
  'Neg',
  'Abs',
  'Exp',
]);

export interface FusedFunction {
  /** What it computes, by the ops it holds: 'layernorm', 'gelu', 'hardswish', 'swish' or 'elementwise'. */
  readonly kind: string;
  /** The tensor it reads. */
  readonly input: string;
  /** The one tensor it produces for the rest of the graph. */
  readonly output: string;
  /** Its nodes, by index, in topological order. */
  readonly nodes: readonly number[];
  /** Tensors computed and read inside it only: they get no Q/DQ. */
  readonly internal: readonly string[];
}

function kindOf(ops: ReadonlySet<string>): string {
  if (ops.has('ReduceMean') && (ops.has('Sqrt') || ops.has('Reciprocal'))) return 'layernorm';
  if (ops.has('Erf') || ops.has('Tanh')) return 'gelu';
  if (ops.has('Clip') || ops.has('HardSigmoid')) return 'hardswish';
  if (ops.has('Sigmoid')) return 'swish';
  return 'elementwise';
}

/** The written-out functions of a graph, disjoint, each with at least two nodes; `allowed` says which nodes may belong to one. */
export function findFusedFunctions(index: GraphIndex, allowed: (node: number) => boolean): FusedFunction[] {
  const position = new Int32Array(index.nodes.length);
  index.order.forEach((n, k) => (position[n] = k));
  const isConstant = (t: string) => index.initializers.has(t) || index.constants.has(t);
  const graphOutputs = new Set(index.outputs.map((o) => o.name ?? ''));
  const taken = new Set<number>();
  const found: FusedFunction[] = [];

  const eligible = (n: number) => {
    const node = index.nodes[n];
    return (
      !taken.has(n) &&
      allowed(n) &&
      isDefaultDomain(node.domain) &&
      FUNCTION_OPS.has(node.op_type ?? '') &&
      node.output.length === 1
    );
  };

  /** The nodes `last` depends on within `inside`, when they form a closed function of at least two nodes. */
  const endingAt = (nodes: readonly number[], inside: ReadonlySet<number>, last: number) => {
    const needed = new Set<number>([last]);
    for (let k = nodes.indexOf(last); k >= 0; k--) {
      if (!needed.has(nodes[k])) continue;
      for (const i of index.nodes[nodes[k]].input) {
        const p = index.producer.get(i);
        if (p !== undefined && inside.has(p)) needed.add(p);
      }
    }
    const kept = nodes.filter((n) => needed.has(n));
    const internal = kept.filter((n) => n !== last).map((n) => index.nodes[n].output[0]);
    const closed = internal.every(
      (t) => !graphOutputs.has(t) && (index.consumers.get(t) ?? []).every((c) => needed.has(c)),
    );
    return kept.length >= 2 && closed ? { kept, output: index.nodes[last].output[0], internal } : undefined;
  };
  const closedFunction = (nodes: readonly number[], inside: ReadonlySet<number>) => {
    for (let k = nodes.length - 1; k >= 1; k--) {
      const fn = endingAt(nodes, inside, nodes[k]);
      if (fn) return fn;
    }
    return undefined;
  };

  const roots = [...index.inputs.map((v) => v.name ?? ''), ...[...index.order].flatMap((n) => index.nodes[n].output)];
  for (const x of roots) {
    {
      if (!x || isConstant(x)) continue;
      // Grow: consumers of x and of the region's outputs whose every input is x, a constant or inside.
      const inside = new Set<number>();
      const produced = new Set<string>();
      const frontier = [x];
      while (frontier.length) {
        const t = frontier.pop()!;
        for (const c of index.consumers.get(t) ?? []) {
          if (inside.has(c) || !eligible(c)) continue;
          const node = index.nodes[c];
          if (!node.input.every((i) => !i || i === x || isConstant(i) || produced.has(i))) continue;
          inside.add(c);
          produced.add(node.output[0]);
          frontier.push(node.output[0]);
        }
      }
      if (inside.size < 2) continue;
      // The output: the latest node whose function is closed (its other tensors are read inside only).
      const nodes = [...inside].sort((a, b) => position[a] - position[b]);
      const fn = closedFunction(nodes, inside);
      if (!fn) continue;
      const { kept, output, internal } = fn;
      kept.forEach((n) => taken.add(n));
      found.push({
        kind: kindOf(new Set(kept.map((n) => index.nodes[n].op_type ?? ''))),
        input: x,
        output,
        nodes: kept,
        internal,
      });
    }
  }
  return found;
}
