/**
 * A model's inputs or outputs: name, element type and shape, one row a tensor. Symbolic dimensions
 * keep their names and are set apart, since calibration must give them concrete sizes.
 */
import type { TensorSummary } from '../../../core/onnx/index.ts';
import { shapeParts } from './shape.ts';
import { TensorName } from '../../components/TensorName.tsx';
import { TitleCount } from '../../components/TitleCount.tsx';
import { DataTable } from '../../components/DataTable.tsx';

function Shape({ shape }: { shape: TensorSummary['shape'] }) {
  const parts = shapeParts(shape);
  return (
    <span className="shape">
      {parts.map((p, i) => (
        <span key={i}>
          {i > 0 && <span className="shape__times"> × </span>}
          <span
            className={p.symbolic ? 'shape__dim shape__dim--symbolic' : 'shape__dim'}
            title={p.symbolic ? 'symbolic dimension' : undefined}
          >
            {p.text}
          </span>
        </span>
      ))}
    </span>
  );
}

export function TensorTable({
  title,
  tensors,
  testId,
  rowTestId,
}: {
  title: string;
  tensors: readonly TensorSummary[];
  testId: string;
  rowTestId: string;
}) {
  return (
    <section className="card" aria-labelledby={`${testId}-title`}>
      <h3 id={`${testId}-title`} className="card__title">
        {title} <TitleCount count={tensors.length} />
      </h3>
      <DataTable
        testId={testId}
        columns={
          <>
            <col className="tensor-table__col-name" />
            <col className="tensor-table__col-type" />
            <col />
          </>
        }
        head={
          <>
            <th scope="col">Name</th>
            <th scope="col">Type</th>
            <th scope="col">Shape</th>
          </>
        }
      >
        {tensors.map((t) => (
          <tr key={t.name} data-testid={rowTestId}>
            <td className="tensor-table__name" data-testid="tensor-name">
              <TensorName name={t.name} />
            </td>
            <td className="tensor-table__type" data-testid="tensor-type">
              {t.elemType}
            </td>
            <td data-testid="tensor-shape">
              <Shape shape={t.shape} />
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
