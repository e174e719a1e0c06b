/**
 * Each node's precision as one of a few classes the graph colours, the layer table and the report share:
 * 8-bit, a 16-bit activation, a 16-bit weight, both at 16 bits, float (excluded or without a rule) and BF16.
 * A mixed-precision model is read at a glance only if every view names a node's precision the same way, so
 * the classes come from one place: the quantizer's report (its per-node label, precision.ts's "A16W8").
 * Data only; no colours here (those belong to the page and the HTML report).
 */
import type { QuantizeReport } from './quantizeReport.ts';

export type PrecisionClass = 'int8' | 'act16' | 'w16' | 'a16w16' | 'float' | 'bf16';

/** Display order (narrowest first) and words. */
export const PRECISION_CLASSES: readonly PrecisionClass[] = ['int8', 'act16', 'w16', 'a16w16', 'bf16', 'float'];

export const PRECISION_CLASS_LABELS: Record<PrecisionClass, string> = {
  int8: '8-bit',
  act16: '16-bit activation',
  w16: '16-bit weight',
  a16w16: '16-bit activation and weight',
  bf16: 'BF16',
  float: 'float (excluded or not quantized)',
};

/** The class of a precision label ("A8W8", "A16W8", "A8", "W16", "float", "BF16"). */
export function precisionClassOf(label: string): PrecisionClass {
  if (label === 'BF16') return 'bf16';
  const a = /A(\d+)/.exec(label);
  const w = /W(\d+)/.exec(label);
  if (!a && !w) return 'float';
  const wideA = a ? Number(a[1]) > 8 : false;
  const wideW = w ? Number(w[1]) > 8 : false;
  return wideA && wideW ? 'a16w16' : wideA ? 'act16' : wideW ? 'w16' : 'int8';
}

/** One node's precision: its label ("A16W8", "float") and class. */
export interface NodePrecision {
  readonly label: string;
  readonly class: PrecisionClass;
}

/**
 * Every node of a quantization, by stable node id: quantized nodes with their label, float nodes as "float"
 * ("BF16" when the whole model is the BF16 preset's). Nodes inside a fused function are absent. Inside If/Loop/Scan
 * bodies (EnableSubgraph), by scoped id (`holder/then_branch/Conv_3`): the quantized nodes with their label, the
 * others (kept float by nodes_to_exclude, a nested If, an LSTM, an op without a rule) as "float". A node graph preparation folded into another takes that node's precision.
 */
export function nodePrecisions(
  report: Pick<QuantizeReport, 'quantized' | 'float' | 'config' | 'subgraphs' | 'folded'>,
): Record<string, NodePrecision> {
  const out: Record<string, NodePrecision> = {};
  const floatLabel = report.config === 'BF16' ? 'BF16' : 'float';
  for (const f of report.float) out[f.id] = { label: floatLabel, class: precisionClassOf(floatLabel) };
  const bodies = report.subgraphs;
  for (const id of [...(bodies?.excludedNodes ?? []), ...(bodies?.floatNodes ?? [])])
    out[id] = { label: 'float', class: 'float' };
  for (const [id, label] of Object.entries(bodies?.quantizedPrecisions ?? {}))
    out[id] = { label, class: precisionClassOf(label) };
  // A node inside a fused function (LayerNorm or GELU written out) carries no label of its own: it has no
  // Q/DQ, its function's border does, so it is left out (the views show it as unlabelled).
  for (const q of report.quantized)
    if (q.precision) out[q.id] = { label: q.precision, class: precisionClassOf(q.precision) };
  // A node preparation merged into another (a BatchNormalization into its Conv) is computed at that node's precision.
  for (const f of report.folded ?? []) if (out[f.into] && !out[f.id]) out[f.id] = out[f.into];
  return out;
}

/** How many nodes each class has (classes with none left out). */
export function precisionCounts(
  precisions: Readonly<Record<string, NodePrecision>>,
): Partial<Record<PrecisionClass, number>> {
  const counts: Partial<Record<PrecisionClass, number>> = {};
  for (const p of Object.values(precisions)) counts[p.class] = (counts[p.class] ?? 0) + 1;
  return counts;
}
