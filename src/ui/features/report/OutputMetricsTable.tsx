/**
 * Per output, each metric's mean, min and max over the samples, as AMD Quark's evaluate tool prints
 * them (cosine, L2, PSNR, SSIM on image outputs, top-1/top-5 agreement on class scores). Numbers are
 * formatted by the same functions as the HTML report, so the page and the download read alike.
 */
import type { MetricName, MetricStat, OutputSummary } from '../../../core/metrics/summary.ts';
import { cosineSeverity, dbSeverity, formatCosine, formatDb, formatValue } from '../../../core/report/htmlText.ts';

const LABELS: Record<MetricName, string> = {
  cosine: 'Cosine similarity',
  l2: 'L2 distance',
  psnr: 'PSNR (dB)',
  ssim: 'SSIM',
  top1: 'Top-1 agreement',
  top5: 'Top-5 agreement',
};

export function metricText(name: MetricName, v: number): string {
  if (name === 'cosine') return formatCosine(v);
  if (name === 'psnr') return formatDb(v);
  return formatValue(v);
}

function severity(name: MetricName, mean: number): string {
  if (name === 'cosine') return cosineSeverity(mean);
  if (name === 'psnr') return dbSeverity(mean);
  return 'none';
}

export function OutputMetricsTable({ outputs }: { outputs: readonly OutputSummary[] }) {
  return (
    <div className="table-scroll">
      <table className="tensor-table eval-table" data-testid="eval-outputs">
        <thead>
          <tr>
            <th scope="col">Output</th>
            <th scope="col">Metric</th>
            <th scope="col" className="eval-num">Mean</th>
            <th scope="col" className="eval-num">Min</th>
            <th scope="col" className="eval-num">Max</th>
          </tr>
        </thead>
        <tbody>
          {outputs.flatMap((o) =>
            (Object.entries(o.metrics) as [MetricName, MetricStat][]).map(([name, s], k) => (
              <tr key={`${o.output}-${name}`} data-output={o.output} data-metric={name}>
                <td className="tensor-table__name">{k === 0 ? o.output : ''}</td>
                <td><span className={`eval-dot eval-dot--${severity(name, s.mean)}`} aria-hidden="true" />{LABELS[name]}</td>
                <td className="eval-num" data-testid={`metric-${name}-mean`}>{metricText(name, s.mean)}</td>
                <td className="eval-num">{metricText(name, s.min)}</td>
                <td className="eval-num">{metricText(name, s.max)}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
    </div>
  );
}
