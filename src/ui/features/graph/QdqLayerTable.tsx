/**
 * The layer table of a model that is already quantized: each node that reads a quantized tensor, with its
 * precision (the same classes and colours as a run's layer table) and what its Q/DQ say: the activation's type,
 * scale and zero point, the weight's type and per-channel scales. A row shows its node on the graph.
 */
import { useMemo, useState } from 'react';
import { quantLabel, type QdqFold, type QuantParams } from '../../../core/graph/qdqFold.ts';
import type { NodePrecision } from '../../../core/quantize/precisionClasses.ts';
import { useStudio } from '../../store/index.ts';
import { PrecisionDot } from './PrecisionDot.tsx';
import type { GraphView } from './viewModel.ts';
import './quantized.css';
import { DataTable } from '../../components/DataTable.tsx';

const FIRST = 20;

interface Row {
  id: string;
  op: string;
  precision: NodePrecision | undefined;
  /** Labelled only for the rows shown (a 67,000-node file has thousands of rows). */
  activations: QuantParams[];
  weights: QuantParams[];
}

const labels = (params: QuantParams[]) => params.map(quantLabel).join('; ');

function rowsOf(view: GraphView, fold: QdqFold, precisions: Readonly<Record<string, NodePrecision>>): Row[] {
  const rows: Row[] = [];
  for (const i of view.index.order) {
    const node = view.index.nodes[i];
    if (fold.folded[i] || view.boxOfNode[i] < 0) continue;
    const activations = node.input.map((t) => fold.edges.get(t)).filter((e) => e !== undefined);
    const weights = node.input.map((t) => fold.weights.get(t)).filter((w) => w !== undefined && w.params.bits < 32);
    if (activations.length === 0 && weights.length === 0) continue;
    const id = view.index.ids[i];
    rows.push({
      id,
      op: node.op_type ?? '',
      precision: precisions[id],
      activations: activations.map((e) => e!.params),
      weights: weights.map((w) => w!.params),
    });
  }
  return rows;
}

export function QdqLayerTable({
  view,
  precisions,
}: {
  view: GraphView;
  precisions: Readonly<Record<string, NodePrecision>>;
}) {
  const select = useStudio((s) => s.selectGraphNode);
  const [all, setAll] = useState(false);
  const rows = useMemo(() => (view.qdq ? rowsOf(view, view.qdq, precisions) : []), [view, precisions]);
  if (rows.length === 0) return null;
  const shown = all ? rows : rows.slice(0, FIRST);
  return (
    <details className="qdq-layers" data-testid="qdq-layers">
      <summary className="small">
        <strong>Quantized layers</strong> ({rows.length} nodes read quantized tensors; from the file’s Q/DQ)
      </summary>
      <DataTable
        className="eval-table"
        head={
          <>
            <th scope="col">Node</th>
            <th scope="col">Op</th>
            <th scope="col">Precision</th>
            <th scope="col">Activation in</th>
            <th scope="col">Weight</th>
          </>
        }
      >
        {shown.map((r) => (
          <tr key={r.id} data-testid="qdq-layer-row">
            <td className="tensor-table__name">
              <button
                type="button"
                className="eval-link"
                onClick={() => select(r.id)}
                title={`Show ${r.id} on the graph`}
              >
                {r.id}
              </button>
            </td>
            <td className="tensor-table__type">{r.op}</td>
            <td data-precision={r.precision?.class}>
              {r.precision && <PrecisionDot precision={r.precision.class} />}
              {r.precision?.label ?? '—'}
            </td>
            <td className="small">{labels(r.activations) || '—'}</td>
            <td className="small">{labels(r.weights) || '—'}</td>
          </tr>
        ))}
      </DataTable>
      {rows.length > FIRST && (
        <button type="button" className="button button--small button--quiet" onClick={() => setAll(!all)}>
          {all ? `Show the first ${FIRST}` : `Show all ${rows.length}`}
        </button>
      )}
    </details>
  );
}
