/**
 * Exports the per-node values the graph can show (the heat map another screen laid over it, and for a quantized
 * model its bit widths, output scales and what stayed float) as JSON in Google Model Explorer's node-data format
 * (core/graph/nodeValues.ts), so they can be opened beside the model in Model Explorer or read by a script.
 */
import { useMemo, useState } from 'react';
import {
  bitWidthValues,
  bitsOfLabel,
  keptFloatValues,
  modelExplorerNodeData,
  outputScaleValues,
  QDQ_VALUE_LABELS,
  type NodeValues,
} from '../../../core/graph/nodeValues.ts';
import { nodePrecisions } from '../../../core/quantize/precisionClasses.ts';
import { downloadText } from '../../components/useObjectUrl.ts';
import { useStudio } from '../../store/index.ts';
import { measuredValues } from '../compare/measuredValues.ts';
import type { GraphView } from './viewModel.ts';
import './quantized.css';
import { modelStem } from '../../../core/onnx/fileName.ts';

/** A value set the picker lists by its label, computed only when exported (a QDQ file's sets walk every node). */
export interface NodeValueSet {
  label: string;
  values: () => NodeValues;
}

const atHand = (v: NodeValues): NodeValueSet => ({ label: v.label, values: () => v });

/** The value sets at hand for this view, by a key the picker shows. */
export function availableNodeValues(
  view: GraphView,
  measured: ReadonlyMap<string, NodeValues>,
  runPrecisions: Record<string, { label: string }> | null,
): Map<string, NodeValueSet> {
  const sets = new Map<string, NodeValueSet>([...measured].map(([k, v]) => [k, atHand(v)]));
  const qdq = view.qdq;
  if (qdq) {
    sets.set('bits', { label: QDQ_VALUE_LABELS.bits, values: () => bitWidthValues(view.index, qdq) });
    sets.set('scale', { label: QDQ_VALUE_LABELS.scale, values: () => outputScaleValues(view.index, qdq) });
    sets.set('float', { label: QDQ_VALUE_LABELS.float, values: () => keptFloatValues(view.index, qdq) });
  } else if (runPrecisions) {
    const bits: Record<string, number> = {};
    const float: Record<string, number> = {};
    for (const [id, p] of Object.entries(runPrecisions)) {
      bits[id] = bitsOfLabel(p.label);
      float[id] = bits[id] === 32 ? 1 : 0;
    }
    sets.set('bits', atHand({ label: 'bit width (last quantization)', higherIsBetter: true, values: bits }));
    sets.set(
      'float',
      atHand({ label: 'kept float (1) or quantized (0), last quantization', higherIsBetter: false, values: float }),
    );
  }
  return sets;
}

const slug = (label: string) =>
  label
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export function NodeDataExport({ view }: { view: GraphView }) {
  const heat = useStudio((s) => s.graph.heat);
  const evaluation = useStudio((s) => s.evaluation.result);
  const run = useStudio((s) => s.run.result);
  const fileName = useStudio((s) => s.model.fileName) ?? 'model.onnx';
  const runPrecisions = useMemo(() => (run ? nodePrecisions(run.report) : null), [run]);
  // The evaluation's values are keyed by the float model's ids: they describe this view only when it is not a QDQ file.
  const measured = useMemo(
    () => (view.qdq ? new Map<string, NodeValues>() : measuredValues(evaluation, heat)),
    [view, evaluation, heat],
  );
  const sets = useMemo(() => availableNodeValues(view, measured, runPrecisions), [view, measured, runPrecisions]);
  const [picked, setPicked] = useState<string>('');
  if (sets.size === 0) return null;
  const key = sets.has(picked) ? picked : [...sets.keys()][0];
  const set = sets.get(key)!;
  const save = () => {
    const values = set.values();
    const json = modelExplorerNodeData(view.index, values);
    downloadText(JSON.stringify(json, null, 1), `${modelStem(fileName)}.${slug(values.label)}.node-data.json`);
  };
  return (
    <span className="graph-node-data small" data-testid="node-data-export">
      <select
        className="select select--inline"
        value={key}
        onChange={(e) => setPicked(e.target.value)}
        aria-label="Per-node values to export"
        data-testid="node-data-pick"
      >
        {[...sets].map(([k, v]) => (
          <option key={k} value={k}>
            {v.label}
          </option>
        ))}
      </select>
      <button
        type="button"
        className="button button--small"
        onClick={save}
        data-testid="node-data-save"
        title="Per-node values as JSON in Google Model Explorer's node-data format (keys: each node's output tensor)"
      >
        Export JSON
      </button>
    </span>
  );
}
