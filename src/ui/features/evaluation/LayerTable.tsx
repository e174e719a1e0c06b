/**
 * The compared tensors sorted by error (lowest SQNR first), with the nodes where the error jumps
 * (output SQNR well below that of their inputs) called out, with each node's precision in the quantized
 * model (8-bit, 16-bit activation or weight, float). A row's node can be shown on the graph.
 */
import { useMemo, useState } from 'react';
import { sortByError } from '../../../core/metrics/layerwise.ts';
import { dbSeverity, formatCosine, formatDb, formatJump } from '../../../core/report/htmlText.ts';
import type { Report, ReportLayers } from '../../../core/report/index.ts';
import { PrecisionDot } from '../graph/PrecisionDot.tsx';
import { useStudio } from '../../store/index.ts';
import { DataTable, NumberHead } from '../../components/DataTable.tsx';

const FIRST = 25;

export function LayerTable({ layers, precisions }: { layers: ReportLayers; precisions: Report['precisions'] }) {
  const select = useStudio((s) => s.selectGraphNode);
  const [all, setAll] = useState(false);
  const sorted = useMemo(() => sortByError(layers.rows), [layers.rows]);
  const jumps = useMemo(() => new Map(layers.jumps.map((j) => [j.node as string, j])), [layers.jumps]);
  const shown = all ? sorted : sorted.slice(0, FIRST);
  return (
    <div>
      {layers.jumps.length > 0 && (
        <div className="eval-jumps" data-testid="eval-jumps">
          <span className="muted small">
            Where the error jumps (output SQNR below the inputs' by more than {layers.jumpThresholdDb} dB):
          </span>
          <ul className="eval-jumps__list">
            {layers.jumps.slice(0, 10).map((j) => (
              <li key={j.node}>
                <button
                  type="button"
                  className="eval-link"
                  title={`${j.opType}: inputs ${formatDb(j.inputSqnr)} dB → output ${formatDb(j.sqnr)} dB; show on the graph`}
                  onClick={() => select(j.node)}
                >
                  {j.node}
                </button>{' '}
                <span className="eval-badge eval-badge--poor" data-testid="eval-jump">
                  {formatJump(j)}
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
      <DataTable
        className="eval-table"
        testId="eval-layers"
        head={
          <>
            <NumberHead>#</NumberHead>
            <th scope="col">Node</th>
            <th scope="col">Op</th>
            {precisions && <th scope="col">Precision</th>}
            <NumberHead>SQNR (dB)</NumberHead>
            <NumberHead>Cosine</NumberHead>
            <NumberHead>Value SQNR</NumberHead>
            <th scope="col">Error jump</th>
          </>
        }
      >
        {shown.map((r, k) => {
          const jump = r.node ? jumps.get(r.node) : undefined;
          return (
            <tr key={r.tensor} data-testid="eval-layer-row" className={jump ? 'eval-table__jump' : undefined}>
              <td className="eval-num">{k + 1}</td>
              <td className="tensor-table__name">
                {r.node ? (
                  <button
                    type="button"
                    className="eval-link"
                    title={`Show ${r.node} on the graph (tensor ${r.tensor})`}
                    onClick={() => select(r.node)}
                  >
                    {r.node}
                  </button>
                ) : (
                  <span title={r.tensor}>{r.tensor} (input)</span>
                )}
              </td>
              <td className="tensor-table__type">{r.opType}</td>
              {precisions && <PrecisionCell precision={r.node ? precisions[r.node] : undefined} />}
              <td className="eval-num">
                <span
                  className={`dot eval-dot eval-dot--${r.sqnr === Infinity ? 'exact' : dbSeverity(r.sqnr)}`}
                  aria-hidden="true"
                />
                {formatDb(r.sqnr)}
              </td>
              <td className="eval-num">{formatCosine(r.cosine)}</td>
              <td className="eval-num">{formatDb(r.valueSqnr)}</td>
              <td>{jump && <span className="eval-badge eval-badge--poor">{formatJump(jump)}</span>}</td>
            </tr>
          );
        })}
      </DataTable>
      {sorted.length > FIRST && (
        <button type="button" className="button button--small button--quiet" onClick={() => setAll(!all)}>
          {all ? `Show the ${FIRST} worst` : `Show all ${sorted.length} tensors`}
        </button>
      )}
    </div>
  );
}

function PrecisionCell({ precision }: { precision: NonNullable<Report['precisions']>[string] | undefined }) {
  if (!precision)
    return (
      <td className="muted" data-testid="eval-layer-precision">
        —
      </td>
    );
  return (
    <td data-testid="eval-layer-precision" data-precision={precision.class}>
      <PrecisionDot precision={precision.class} />
      {precision.label}
    </td>
  );
}
