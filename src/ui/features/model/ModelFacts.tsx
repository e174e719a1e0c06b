/**
 * The model's vital facts as a definition list: format versions, producer, graph size, weights, and
 * the properties later steps care about (already quantized, float16, custom-domain ops).
 */
import type { ReactNode } from 'react';
import type { ModelSummary } from '../../../core/onnx/index.ts';
import { exact, formatBytes, formatCount, plural } from '../../components/format.ts';

const QUANTIZATION_TEXT: Record<ModelSummary['quantization']['state'], string> = {
  float: 'Float (not quantized)',
  qdq: 'Quantized (QDQ)',
  qoperator: 'Quantized (QOperator)',
  dynamic: 'Dynamically quantized',
  mixed: 'Quantized (mixed formats)',
};

const domainName = (domain: string) => domain || 'ai.onnx';

/** One fact; `wide` ones take the whole row (lists of long domain names). */
function Fact({
  term,
  children,
  testId,
  wide = false,
}: {
  term: string;
  children: ReactNode;
  testId?: string;
  wide?: boolean;
}) {
  return (
    <div className={wide ? 'facts__item facts__item--wide' : 'facts__item'}>
      <dt>{term}</dt>
      <dd data-testid={testId}>{children}</dd>
    </div>
  );
}

export function ModelFacts({ summary: s }: { summary: ModelSummary }) {
  return (
    <section className="card" aria-labelledby="facts-title">
      <h3 id="facts-title" className="card__title">
        Model
      </h3>
      <dl className="facts">
        <Fact term="Nodes">
          <span className="facts__big" data-testid="summary-node-count">
            {exact(s.nodeCount)}
          </span>
          <span className="facts__sub">
            {s.unnamedNodeCount > 0 && (
              <>{s.unnamedNodeCount === s.nodeCount ? 'all' : exact(s.unnamedNodeCount)} unnamed</>
            )}
            {s.subgraphNodeCount > 0 && (
              <>
                {s.unnamedNodeCount > 0 && ' · '}+{plural(s.subgraphNodeCount, 'node')} in subgraphs
              </>
            )}
          </span>
        </Fact>
        <Fact term="Parameters" testId="summary-parameters">
          <span className="facts__big" title={exact(s.parameterCount)}>
            {formatCount(s.parameterCount)}
          </span>
          <span className="facts__sub">{formatBytes(s.parameterBytes)}</span>
        </Fact>
        <Fact term="IR version">{s.irVersion}</Fact>
        <Fact term="Opsets" wide={s.opsets.some((o) => o.domain !== '')}>
          {s.opsets.map((o) => (
            <span key={o.domain} className="pill">
              {domainName(o.domain)} {o.version}
            </span>
          ))}
        </Fact>
        <Fact term="Producer">{s.producer || <span className="muted">not recorded</span>}</Fact>
        <Fact term="Graph">{s.graphName || <span className="muted">unnamed</span>}</Fact>
        <Fact term="Weight types" testId="summary-weight-types">
          {s.weightTypes.length === 0 && <span className="muted">no weights</span>}
          {s.weightTypes.map((w) => (
            <span
              key={w.elemType}
              className="pill"
              title={`${plural(w.tensors, 'tensor')}, ${exact(w.elements)} elements`}
            >
              {w.elemType} <span className="pill__sub">×{exact(w.tensors)}</span>
            </span>
          ))}
        </Fact>
        <Fact term="Quantization" testId="summary-quantization">
          {QUANTIZATION_TEXT[s.quantization.state]}
        </Fact>
        <Fact term="Float16" testId="summary-float16">
          {s.float16 ? 'Yes' : 'No'}
        </Fact>
        <Fact term="Custom-domain ops" testId="summary-custom-ops" wide={s.customOps.length > 0}>
          {s.customOps.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            s.customOps.map((o) => (
              <span key={`${o.domain}::${o.opType}`} className="pill pill--warning">
                {o.domain}.{o.opType} <span className="pill__sub">×{exact(o.count)}</span>
              </span>
            ))
          )}
        </Fact>
      </dl>
    </section>
  );
}
