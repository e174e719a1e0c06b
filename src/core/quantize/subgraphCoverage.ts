/**
 * The nodes inside control flow: If, Loop and Scan bodies (at any depth), counted for the report. The quantizer
 * calibrates and quantizes inside bodies (quantizeSubgraphs.ts) and adds what it quantized there and what compute
 * stayed float and why (withBodyOutcome); writers that do not enter bodies (BF16, float16 sources) say that every
 * body node stays as it was. Either way a user of a recurrent or wake-word model learns where its compute is
 * (Silero VAD keeps almost all of it inside If).
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import { forEachGraph, subgraphsOf } from '../onnx/walk.ts';
import type { QuantPlan } from './plan.ts';

/** The control-flow nodes of the main graph and the nodes their subgraphs hold. */
export interface SubgraphCoverage {
  /** Main-graph nodes carrying subgraphs (If, Loop, Scan, …), by stable id. */
  holders: { id: string; opType: string }[];
  /** Nodes inside those subgraphs, every depth counted (nested control-flow nodes included). */
  nodes: number;
  /** Those nodes by op type, most frequent first. */
  opTypes: Record<string, number>;
  /** Nodes inside bodies the quantizer quantized, in all and by op type (absent where the bodies were not entered). */
  quantized?: number;
  quantizedOps?: Record<string, number>;
  /** Compute nodes (Conv, MatMul, Gemm, LSTM, …) inside bodies left float, by "op: why". */
  floatCompute?: Record<string, number>;
  /** The quantized body nodes by scoped id (`holder/then_branch/Conv_3`, as the per-layer table names them). */
  quantizedNodes?: string[];
  /** Their precision labels ("A8W8", "A16W8"), by scoped id, as the main graph's quantized nodes carry theirs. */
  quantizedPrecisions?: Record<string, string>;
  /** Body nodes nodes_to_exclude kept float, by scoped id. */
  excludedNodes?: string[];
  /**
   * Every other body node the quantizer left float (no rule, no range, a nested If/Loop/Scan, LSTM), by scoped id:
   * as the main graph's float nodes, the views label them "float" rather than nothing.
   */
  floatNodes?: string[];
}

/** The coverage with what the quantizer did inside the bodies. */
export function withBodyOutcome(c: SubgraphCoverage, o: BodyOutcome): void {
  const sorted = (m: Map<string, number>) =>
    Object.fromEntries([...m].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
  c.quantized = [...o.quantized.values()].reduce((a, b) => a + b, 0);
  c.quantizedOps = sorted(o.quantized);
  c.floatCompute = sorted(o.floatCompute);
  c.quantizedNodes = o.quantizedIds;
  c.quantizedPrecisions = Object.fromEntries(o.precisions);
  if (o.excludedIds.length > 0) c.excludedNodes = o.excludedIds;
  if (o.floatIds.length > 0) c.floatNodes = o.floatIds;
}

/** What the quantizer did inside the bodies of one model (quantizeSubgraphs.ts). */
export interface BodyOutcome {
  /** Quantized nodes by op type. */
  quantized: Map<string, number>;
  /** Nodes of compute ops (weights, products) left float, by "op: reason". */
  floatCompute: Map<string, number>;
  /** Activation Q/DQ pairs written inside bodies. */
  activationPairs: number;
  /** Body nodes quantized, by scoped id (`holder/then_branch/Conv_3`): what the exclusion search may try. */
  quantizedIds: string[];
  /** The quantized body nodes' precision labels, by scoped id. */
  precisions: Map<string, string>;
  /** Body nodes kept float because nodes_to_exclude names them. */
  excludedIds: string[];
  /** The other body nodes left float, by scoped id. */
  floatIds: string[];
  /** The bodies' plans merged (tensor names are unique across scopes): what mixed precision may widen inside them. */
  plan: BodyPlan;
}

/**
 * Activation groups, activation pairs and weights of every body plan, innermost bodies first, and the weights
 * given 7-bit channels or at risk of saturating x86 int8 kernels there.
 */
export type BodyPlan = Pick<QuantPlan, 'groups' | 'activations' | 'weights' | 'saturationSafe' | 'saturationRisk'>;

/**
 * The activation pairs and weights of a quantization, main graph and bodies together: a tensor the main graph and a
 * body both quantize is one entry (the body's type where both have it).
 */
export function plannedTensors<A, W>(
  plan: { readonly activations: ReadonlyMap<string, A>; readonly weights: ReadonlyMap<string, W> },
  bodyPlan?: { readonly activations: ReadonlyMap<string, A>; readonly weights: ReadonlyMap<string, W> },
): { activations: Map<string, A>; weights: Map<string, W> } {
  return {
    activations: new Map([...plan.activations, ...(bodyPlan?.activations ?? [])]),
    weights: new Map([...plan.weights, ...(bodyPlan?.weights ?? [])]),
  };
}

/** Ops whose compute the main graph would quantize (weights and products), named in the warnings. */
export const COMPUTE_OPS = new Set([
  'Conv',
  'ConvTranspose',
  'Gemm',
  'MatMul',
  'LSTM',
  'GRU',
  'RNN',
  'Attention',
  'MatMulInteger',
  'Einsum',
]);

/** The subgraph nodes of the index's graph, or undefined when it has no control flow. */
export function subgraphCoverage(index: GraphIndex): SubgraphCoverage | undefined {
  const holders: SubgraphCoverage['holders'] = [];
  const counts = new Map<string, number>();
  let nodes = 0;
  index.nodes.forEach((n, i) => {
    const subs = subgraphsOf(n);
    if (subs.length === 0) return;
    holders.push({ id: index.ids[i], opType: n.op_type ?? '' });
    for (const s of subs) {
      forEachGraph(s, (g) => {
        for (const m of g.node) {
          nodes++;
          counts.set(m.op_type ?? '', (counts.get(m.op_type ?? '') ?? 0) + 1);
        }
      });
    }
  });
  if (holders.length === 0) return undefined;
  const opTypes = Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));
  return { holders, nodes, opTypes };
}

/**
 * The report's warning: how many nodes stay float inside which control flow, compute ops named, and why; with the
 * quantizer's outcome, what it quantized inside and each compute op left float with its reason (none: no warning).
 */
export function subgraphWarning(
  c: SubgraphCoverage,
  what?: string,
  why = 'its bodies are not entered there',
): string | undefined {
  const kinds = new Map<string, number>();
  for (const h of c.holders) kinds.set(h.opType, (kinds.get(h.opType) ?? 0) + 1);
  const holders = [...kinds].map(([op, k]) => `${op} ×${k}`).join(', ');
  if (c.quantized !== undefined && what === undefined) {
    const left = Object.entries(c.floatCompute ?? {});
    if (left.length === 0) return undefined;
    const done = Object.entries(c.quantizedOps ?? {})
      .filter(([op]) => COMPUTE_OPS.has(op))
      .map(([op, k]) => `${k} ${op}`);
    return (
      `inside the subgraphs of ${c.holders.length} control-flow node(s) (${holders}), ${c.quantized} of ${c.nodes} node(s) are quantized` +
      `${done.length ? ` (${done.join(', ')} among them)` : ''}; compute left float32: ${left.map(([k, n]) => `${n} ${k}`).join('; ')}`
    );
  }
  what ??= 'quantizes';
  const compute = Object.entries(c.opTypes)
    .filter(([op]) => COMPUTE_OPS.has(op))
    .map(([op, k]) => `${k} ${op}`);
  return (
    `${c.nodes} node(s) inside the subgraphs of ${c.holders.length} control-flow node(s) (${holders}) stay float32` +
    `${compute.length ? `, among them ${compute.join(', ')}` : ''}: the studio ${what} the main graph only ` +
    `(${why}); listed under subgraphs in the summary`
  );
}
