/**
 * The evaluation's per-node measurements as value sets (keyed by the evaluated float model's node ids): SQNR of each
 * node's output, and the error jump (how many dB a node loses against its inputs) where the evaluation found one.
 * The split view paints them when its first model is the evaluated one; the node-data export writes them.
 */
import type { NodeValues } from '../../../core/graph/nodeValues.ts';
import type { EvaluationOutcome } from '../../store/evaluationSlice.ts';
import type { GraphHeat } from '../../store/graphSlice.ts';

export function measuredValues(evaluation: EvaluationOutcome | null, heat: GraphHeat | null): Map<string, NodeValues> {
  const sets = new Map<string, NodeValues>();
  if (heat) sets.set('heat', heat);
  if (evaluation && Object.keys(evaluation.nodeSqnr).length > 0 && heat?.values !== evaluation.nodeSqnr) {
    sets.set('sqnr', { label: 'SQNR (dB)', higherIsBetter: true, values: evaluation.nodeSqnr });
  }
  const jumps = evaluation?.report.layers?.jumps ?? [];
  if (jumps.length > 0) {
    const values: Record<string, number> = {};
    for (const j of jumps) values[j.node] = j.drop;
    sets.set('jump', { label: 'error jump (dB lost)', higherIsBetter: false, values });
  }
  return sets;
}
