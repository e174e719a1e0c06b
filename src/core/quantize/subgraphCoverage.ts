/**
 * What stays float inside control flow: the nodes of If, Loop and Scan bodies (at any depth). The quantizer
 * calibrates and quantizes the main graph only: a tensor inside a body cannot be made a graph output to read
 * its range, and a body's tensors live once per iteration or branch. Those nodes keep computing in float32, and
 * the writers keep every initializer they read; this module counts them for the report's warning, so a user of a
 * recurrent or wake-word model learns where its compute is (Silero VAD keeps almost all of it inside If).
 */
import type { GraphIndex } from '../onnx/graphIndex.ts';
import { forEachGraph, subgraphsOf } from '../onnx/walk.ts';

/** The control-flow nodes of the main graph and the nodes their subgraphs hold. */
export interface SubgraphCoverage {
  /** Main-graph nodes carrying subgraphs (If, Loop, Scan, …), by stable id. */
  holders: { id: string; opType: string }[];
  /** Nodes inside those subgraphs, every depth counted (nested control-flow nodes included). */
  nodes: number;
  /** Those nodes by op type, most frequent first. */
  opTypes: Record<string, number>;
}

/** Ops whose compute the main graph would quantize (weights and products), named first in the warning. */
const COMPUTE_OPS = new Set(['Conv', 'ConvTranspose', 'Gemm', 'MatMul', 'LSTM', 'GRU', 'RNN', 'Attention', 'MatMulInteger', 'Einsum']);

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

/** The report's warning: how many nodes stay float inside which control flow, compute ops named, and why. */
export function subgraphWarning(c: SubgraphCoverage, what = 'quantizes'): string {
  const kinds = new Map<string, number>();
  for (const h of c.holders) kinds.set(h.opType, (kinds.get(h.opType) ?? 0) + 1);
  const holders = [...kinds].map(([op, k]) => `${op} ×${k}`).join(', ');
  const compute = Object.entries(c.opTypes).filter(([op]) => COMPUTE_OPS.has(op)).map(([op, k]) => `${k} ${op}`);
  return (
    `${c.nodes} node(s) inside the subgraphs of ${c.holders.length} control-flow node(s) (${holders}) stay float32` +
    `${compute.length ? `, among them ${compute.join(', ')}` : ''}: the studio ${what} the main graph only ` +
    `(tensors inside If/Loop/Scan bodies cannot be read out for calibration); listed under subgraphs in the summary`
  );
}
