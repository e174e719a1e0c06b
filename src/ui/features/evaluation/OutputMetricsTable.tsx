/**
 * Per output, each metric's mean, min and max over the samples, as AMD Quark's evaluate tool prints
 * them (cosine, L2, PSNR, SSIM on image outputs, top-1/top-5 agreement on class scores). Labels,
 * numbers and colours come from the same functions as the HTML report (core/report/htmlText.ts), so the
 * page and the download read alike.
 */
import type { MetricName, MetricStat, OutputSummary } from '../../../core/metrics/metricSummary.ts';
import { METRIC_LABELS, metricSeverity, metricText } from '../../../core/report/htmlText.ts';
import { TensorName } from '../../components/TensorName.tsx';
import { DataTable, NumberHead } from '../../components/DataTable.tsx';

export function OutputMetricsTable({
  outputs,
  testId = 'eval-outputs',
}: {
  outputs: readonly OutputSummary[];
  testId?: string;
}) {
  return (
    <DataTable
      className="eval-table"
      testId={testId}
      head={
        <>
          <th scope="col">Output</th>
          <th scope="col">Metric</th>
          <NumberHead>Mean</NumberHead>
          <NumberHead>Min</NumberHead>
          <NumberHead>Max</NumberHead>
        </>
      }
    >
      {outputs.flatMap((o) =>
        (Object.entries(o.metrics) as [MetricName, MetricStat][]).map(([name, s], k) => (
          <tr key={`${o.output}-${name}`} data-output={o.output} data-metric={name}>
            <td className="tensor-table__name">{k === 0 ? <TensorName name={o.output} /> : ''}</td>
            <td>
              <span className={`dot eval-dot eval-dot--${metricSeverity(name, s.mean)}`} aria-hidden="true" />
              {METRIC_LABELS[name]}
            </td>
            <td className="eval-num" data-testid={`metric-${name}-mean`}>
              {metricText(name, s.mean)}
            </td>
            <td className="eval-num">{metricText(name, s.min)}</td>
            <td className="eval-num">{metricText(name, s.max)}</td>
          </tr>
        )),
      )}
    </DataTable>
  );
}
