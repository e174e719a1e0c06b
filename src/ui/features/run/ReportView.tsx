/**
 * What quantizing did, from the core's report: how many nodes were quantized and how many stayed
 * float, the Q/DQ pairs written, the opset before and after, warnings, the tensors left without Q/DQ
 * because they are not float, what graph preparation changed, every float node with its reason
 * (collapsed: it can be long), and the nodes inside If/Loop/Scan bodies the exclusion list kept float (scoped ids).
 */
import type { ReactNode } from 'react';
import { exact, formatBytes, plural } from '../../components/format.ts';
import { useStudio, type RunResult } from '../../store/index.ts';
import { namedReasons } from './namedReasons.ts';
import { Callout } from '../../components/Callout.tsx';
import { DataTable } from '../../components/DataTable.tsx';

function Count({ label, value, testId, sub }: { label: string; value: ReactNode; testId: string; sub?: ReactNode }) {
  return (
    <div className="facts__item">
      <dt>{label}</dt>
      <dd>
        <span className="facts__big" data-testid={testId}>
          {value}
        </span>
        {sub && <span className="facts__sub">{sub}</span>}
      </dd>
    </div>
  );
}

/** Float nodes by reason (as `named` words it), most common first. */
function byReason(float: RunResult['report']['float'], named: (reason: string) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const f of float) {
    const reason = named(f.reason);
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]);
}

export function ReportView({ result }: { result: RunResult }) {
  const { report } = result;
  const c = report.counts;
  // The user's names of their exclusions, from the list the model was made with where it was adopted.
  const entries = useStudio((s) => s.exclusions.entries);
  const named = namedReasons(result.adoptedUnder?.exclusions ?? entries);
  const reasons = byReason(report.float, named);
  const bf16 = report.bf16;
  return (
    <div className="report" data-testid="quant-report">
      <dl className="facts">
        <Count
          label={bf16 ? 'Nodes in BF16' : 'Quantized nodes'}
          value={exact(c.quantized)}
          testId="report-quantized"
          sub={`of ${exact(c.nodes)}`}
        />
        <Count label="Float nodes" value={exact(c.float)} testId="report-float" />
        {bf16 ? (
          <Count
            label="BF16 Cast pairs"
            value={exact(bf16.activations)}
            testId="report-qdq"
            sub={`+ ${plural(bf16.weights, 'weight')} stored as bfloat16`}
          />
        ) : (
          <Count
            label="Q/DQ pairs"
            value={exact(c.activationPairs)}
            testId="report-qdq"
            sub={`+ ${plural(c.quantizedConstants, 'quantized constant')}`}
          />
        )}
        <Count
          label="Opset"
          value={
            <>
              {report.opset.before} → {report.opset.after}
            </>
          }
          testId="report-opset"
          sub={report.opset.qdqDomain === 'com.microsoft' ? 'Q/DQ in com.microsoft' : undefined}
        />
        <Count
          label="Size"
          value={formatBytes(result.byteLength)}
          testId="report-size"
          sub={`${result.seconds.toFixed(1)} s`}
        />
      </dl>
      {report.saturationRisk && (
        <Callout
          kind="info"
          testId="report-saturation-risk"
          title={`For a CPU deployment: ${plural(report.saturationRisk.length, 'weight')} could saturate x86 int8 kernels`}
        >
          Their 8-bit codes hold same-sign pairs past 128, which onnxruntime&apos;s CPU provider at its default graph
          optimization (x86 without VNNI) adds in 16 bits and can saturate. The studio&apos;s figures run the
          model&apos;s own Q/DQ arithmetic (graph optimization &apos;basic&apos;) and do not show it;{' '}
          <code>qstudio evaluate</code> measures it at onnxruntime&apos;s default. To deploy with onnxruntime on such a
          CPU, tick &ldquo;Safe for x86 CPU int8 kernels&rdquo; and quantize again.
          <details className="report__details">
            <summary>Weights</summary>
            <ul className="plain-list">
              {report.saturationRisk.map((w) => (
                <li key={w} className="mono">
                  {w}
                </li>
              ))}
            </ul>
          </details>
        </Callout>
      )}
      {report.warnings.length > 0 && (
        <details className="report__details" data-testid="report-warnings">
          <summary>{plural(report.warnings.length, 'warning')}</summary>
          <ul className="plain-list">
            {report.warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        </details>
      )}
      {report.notFloat.length > 0 && (
        <details className="report__details" data-testid="report-not-float">
          <summary>
            {plural(report.notFloat.length, 'tensor')} at quantized nodes left without Q/DQ: not float32
          </summary>
          <ul className="plain-list">
            {report.notFloat.map((t) => (
              <li key={t.tensor}>
                {t.tensor} ({t.elemType === 'unknown' ? 'element type unknown' : t.elemType})
              </li>
            ))}
          </ul>
        </details>
      )}
      {report.preparation.length > 0 && (
        <details className="report__details">
          <summary>Graph preparation: {plural(report.preparation.length, 'change')}</summary>
          <ul className="plain-list">
            {report.preparation.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ul>
        </details>
      )}
      {report.subgraphs?.excludedNodes && (
        <details className="report__details" data-testid="report-float-body-nodes">
          <summary>
            Kept float inside subgraphs (the exclusion list): {plural(report.subgraphs.excludedNodes.length, 'node')}
          </summary>
          <ul className="plain-list">
            {report.subgraphs.excludedNodes.map((id) => (
              <li key={id} className="mono">
                {id}
              </li>
            ))}
          </ul>
        </details>
      )}
      {report.float.length > 0 && (
        <details className="report__details" data-testid="report-float-nodes">
          <summary>
            Float nodes and why:{' '}
            {reasons
              .slice(0, 3)
              .map(([reason, n]) => `${reason} (${n})`)
              .join(', ')}
            {reasons.length > 3 ? ', …' : ''}
          </summary>
          <DataTable
            className="report__table"
            head={
              <>
                <th scope="col">Node</th>
                <th scope="col" className="report__col-op">
                  Op
                </th>
                <th scope="col">Reason</th>
              </>
            }
          >
            {report.float.map((f) => (
              <tr key={f.id}>
                <td className="tensor-table__name">{f.id}</td>
                <td className="tensor-table__type">{f.opType}</td>
                <td>{named(f.reason)}</td>
              </tr>
            ))}
          </DataTable>
        </details>
      )}
    </div>
  );
}
