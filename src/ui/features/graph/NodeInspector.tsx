/**
 * The node inspector: the selected node's op type, id and name, its attributes, its inputs (weights
 * with their shapes, value statistics and a histogram, computed in the model worker) and outputs
 * (shapes and, once calibrated, the calibrated range with a picture of where zero lies and, on demand,
 * a histogram of its values: TensorHistogram.tsx), and which
 * exclusion entries keep it float (for an If, Loop or Scan, also those that keep nodes of its subgraphs float). Graph
 * inputs and outputs show their tensor.
 *
 * In a QDQ model a tensor quantized by a folded Q/DQ pair shows its type, scale and zero point; a quantized weight
 * shows its integer codes (statistics and histogram of the codes themselves) and the scale(s) that map them to
 * float, per channel as a chart. A Q or DQ node shown as a node says the same of itself.
 */
import { useEffect, useMemo, useState } from 'react';
import type { AttributeProto, NodeId } from '../../../core/onnx/model.ts';
import { AttributeType } from '../../../core/onnx/model.ts';
import { weightOf } from '../../../core/onnx/graphIndex.ts';
import { weightStatistics } from '../../remote/modelRemote.ts';
import type { WeightStatistics } from '../../remote/workerTypes.ts';
import { useStudio } from '../../store/index.ts';
import { boxOfId, shapeLabel, type GraphView } from './viewModel.ts';
import { BreakableName } from './BreakableName.tsx';
import { FAMILY_COLOURS } from './families.ts';
import { TensorHistogram } from './TensorHistogram.tsx';
import { ScaleChart } from './ScaleChart.tsx';
import {
  isDequantizeNode,
  isQuantizeNode,
  quantLabel,
  quantParamsOf,
  type QuantParams,
} from '../../../core/graph/qdqFold.ts';
import './quantized.css';

function QuantLine({ params, testId }: { params: QuantParams; testId: string }) {
  return (
    <span
      className="inspector-quant small"
      data-testid={testId}
      data-type={params.type}
      data-channels={params.channels}
      data-scale={params.scales && params.scales.length === 1 ? params.scales[0] : undefined}
      data-zero-point={params.zeroPoints && params.zeroPoints.length === 1 ? params.zeroPoints[0] : undefined}
    >
      <strong>{quantLabel(params)}</strong>
      {params.scales && params.scales.length > 1 && <ScaleChart scales={params.scales} />}
    </span>
  );
}

const text = (b: Uint8Array | undefined) => (b ? new TextDecoder().decode(b) : '');
const num = (v: number) =>
  Number.isInteger(v) ? String(v) : Math.abs(v) >= 1e4 || Math.abs(v) < 1e-3 ? v.toExponential(3) : v.toPrecision(4);
const list = (xs: readonly (number | string)[]) =>
  `[${xs.slice(0, 16).join(', ')}${xs.length > 16 ? `, … (${xs.length})` : ''}]`;

/** An attribute's value as text. */
export function attributeText(a: AttributeProto): string {
  switch (a.type) {
    case AttributeType.FLOAT:
      return num(a.f ?? 0);
    case AttributeType.INT:
      return String(a.i ?? 0);
    case AttributeType.STRING:
      return JSON.stringify(text(a.s));
    case AttributeType.TENSOR:
      return `tensor ${a.t?.dims.length ? a.t.dims.join('×') : 'scalar'}`;
    case AttributeType.GRAPH:
      return `graph (${a.g?.node.length ?? 0} nodes)`;
    case AttributeType.FLOATS:
      return list(a.floats.map(num));
    case AttributeType.INTS:
      return list(a.ints);
    case AttributeType.STRINGS:
      return list(a.strings.map((s) => JSON.stringify(text(s))));
    case AttributeType.GRAPHS:
      return `${a.graphs.length} graphs`;
    default:
      return '…';
  }
}

function Histogram({ counts }: { counts: number[] }) {
  const max = Math.max(1, ...counts);
  return (
    <svg
      className="inspector-histogram"
      viewBox={`0 0 ${counts.length * 4} 24`}
      preserveAspectRatio="none"
      role="img"
      aria-label="histogram of the values"
    >
      {counts.map((c, i) => (
        <rect key={i} x={i * 4} y={24 - (24 * c) / max} width={3.4} height={(24 * c) / max} />
      ))}
    </svg>
  );
}

/** A range [min, max] as a bar with a mark where zero is. */
function RangePicture({ min, max }: { min: number; max: number }) {
  const lo = Math.min(min, 0),
    hi = Math.max(max, 0);
  const span = hi - lo || 1;
  const x = (v: number) => (100 * (v - lo)) / span;
  return (
    <svg
      className="inspector-range"
      viewBox="0 0 100 12"
      preserveAspectRatio="none"
      role="img"
      aria-label={`range ${num(min)} to ${num(max)}`}
    >
      <rect x={0} y={5} width={100} height={2} className="inspector-range__axis" />
      <rect x={x(min)} y={2} width={Math.max(0.8, x(max) - x(min))} height={8} className="inspector-range__bar" />
      <rect x={x(0) - 0.4} y={0} width={0.8} height={12} className="inspector-range__zero" />
    </svg>
  );
}

/** `nodesOf`: the nodes of each resolving exclusion entry, by entry id (resolved once, by the graph screen). */
export function NodeInspector({
  view,
  handle,
  nodesOf,
  onOpenSubgraph,
  scopePrefix = '',
}: {
  view: GraphView;
  handle: string;
  nodesOf: ReadonlyMap<string, readonly number[]>;
  onOpenSubgraph?(nodeId: string, attribute: string): void;
  /** Inside a body, the prefix of its nodes' scoped ids (`holder/then_branch/`); '' on the main graph. */
  scopePrefix?: string;
}) {
  const selected = useStudio((s) => s.graph.selected);
  const ranges = useStudio((s) => s.calibration.result?.ranges ?? null);
  const entries = useStudio((s) => s.exclusions.entries);
  const heat = useStudio((s) => s.graph.heat);
  const { index } = view;
  const nodeIndex = selected ? index.indexOfId.get(selected as NodeId) : undefined;
  const node = nodeIndex !== undefined ? index.nodes[nodeIndex] : undefined;
  // Weights read directly, and the integer codes behind a folded DequantizeLinear.
  const weights = useMemo(
    () =>
      node ? node.input.map((t) => view.qdq?.weights.get(t)?.codes ?? t).filter((t) => t && weightOf(index, t)) : [],
    [node, index, view],
  );
  const [stats, setStats] = useState<Map<string, WeightStatistics>>(new Map());

  useEffect(() => {
    setStats(new Map());
    if (weights.length === 0) return;
    let live = true;
    weightStatistics(handle, weights)
      .then((found) => live && setStats(new Map(found.map((s) => [s.name, s]))))
      .catch((e: Error) => live && setStats(new Map(weights.map((name) => [name, { name, error: e.message }]))));
    return () => {
      live = false;
    };
  }, [handle, weights]);

  const excludedBy = useMemo(
    () => (nodeIndex === undefined ? [] : entries.filter((e) => nodesOf.get(e.id)?.includes(nodeIndex) ?? false)),
    [entries, nodesOf, nodeIndex],
  );
  // Entries naming nodes inside this node's subgraphs by scoped id (`loop/body/…`).
  const excludedInside = useMemo(() => {
    const inside = `${scopePrefix}${selected}/`;
    return entries.filter((e) => e.kind === 'nodes' && e.nodes.some((id) => id.startsWith(inside)));
  }, [entries, scopePrefix, selected]);

  if (!selected) {
    return (
      <aside className="inspector inspector--empty" data-testid="node-inspector">
        <p className="muted">Click a node to see its attributes, weights and tensors. Search with “/”.</p>
      </aside>
    );
  }
  const box = boxOfId(view, selected);
  const rangeOf = (t: string) => ranges?.[t];
  const tensorRow = (t: string) => {
    const quant = view.qdq?.edges.get(t);
    const info = view.tensorInfo.get(t) ?? (quant ? view.tensorInfo.get(quant.source) : undefined);
    const r = rangeOf(t) ?? (quant ? rangeOf(quant.source) : undefined);
    return (
      <li key={t} className="inspector-tensor">
        <code className="inspector-tensor__name" title={t}>
          {t || '(none)'}
        </code>
        <span className="muted small">
          {info ? `${info.elemType} ${shapeLabel(info) || 'shape unknown'}` : 'shape unknown'}
        </span>
        {quant && <QuantLine params={quant.params} testId="inspector-quant" />}
        {r && (
          <span className="inspector-tensor__range" data-testid="inspector-range">
            <span className="small">
              calibrated {num(r[0])} … {num(r[1])}
            </span>
            <RangePicture min={r[0]} max={r[1]} />
            <TensorHistogram tensor={t} range={[r[0], r[1]]} />
          </span>
        )}
      </li>
    );
  };

  if (!node) {
    const ioBox = box !== undefined ? view.boxes[box] : undefined;
    return (
      <aside className="inspector" data-testid="node-inspector" data-node-id={selected}>
        <h3 className="inspector__title">
          {ioBox?.outerScope
            ? 'Input from the outer scope'
            : ioBox?.kind === 'input'
              ? 'Graph input'
              : ioBox?.kind === 'output'
                ? 'Graph output'
                : selected}
        </h3>
        {ioBox?.outerScope && (
          <p className="small muted" data-testid="inspector-outer-scope">
            Computed in an enclosing graph; this subgraph reads it by name.
          </p>
        )}
        {ioBox && <ul className="inspector-list">{tensorRow(ioBox.title)}</ul>}
      </aside>
    );
  }
  const family = box !== undefined ? view.boxes[box].family : 'other';
  const heatValue = heat?.values[selected];
  return (
    <aside className="inspector" data-testid="node-inspector" data-node-id={selected}>
      <h3 className="inspector__title">
        <span className="inspector__op" style={{ background: FAMILY_COLOURS[family] }}>
          {node.op_type}
        </span>
        <span className="inspector__id" data-testid="inspector-id">
          <BreakableName name={selected} />
        </span>
      </h3>
      <p className="small muted">
        {node.name ? (
          <>
            name <code>{node.name}</code>
          </>
        ) : (
          'unnamed in the file; the id is its op type and position'
        )}
        {node.domain && node.domain !== 'ai.onnx' ? (
          <>
            {' '}
            · domain <code>{node.domain}</code>
          </>
        ) : null}
      </p>
      {(isQuantizeNode(node) || isDequantizeNode(node)) && (
        <QuantLine
          params={quantParamsOf(
            index,
            node,
            isDequantizeNode(node) ? weightOf(index, node.input[0] ?? '')?.data_type : undefined,
          )}
          testId="inspector-qdq-node"
        />
      )}
      {heat && heatValue !== undefined && (
        <p className="small">
          {heat.label}: <strong>{num(heatValue)}</strong>
        </p>
      )}
      {excludedBy.length > 0 && (
        <p className="inspector__excluded small" data-testid="inspector-excluded">
          Stays float: {excludedBy.map((e) => `“${e.name}”`).join(', ')}
        </p>
      )}
      {excludedInside.length > 0 && (
        <p className="inspector__excluded small" data-testid="inspector-excluded-inside">
          Nodes of its subgraphs stay float: {excludedInside.map((e) => `“${e.name}”`).join(', ')}
        </p>
      )}
      {node.attribute.length > 0 && (
        <>
          <h4 className="inspector__heading">Attributes</h4>
          <dl className="inspector-attributes">
            {node.attribute.map((a) => (
              <div key={a.name}>
                <dt>{a.name}</dt>
                <dd>
                  <code>{attributeText(a)}</code>
                  {a.g && onOpenSubgraph && (
                    <button
                      type="button"
                      className="button button--small inspector__open"
                      data-testid={`open-subgraph-${a.name}`}
                      onClick={() => onOpenSubgraph(selected, a.name ?? '')}
                      title={`Show the ${a.name} subgraph in the view (its nodes, as the main graph's)`}
                    >
                      Open
                    </button>
                  )}
                </dd>
              </div>
            ))}
          </dl>
        </>
      )}
      <h4 className="inspector__heading">Inputs</h4>
      <ul className="inspector-list">
        {node.input.map((t, k) => {
          const folded = t ? view.qdq?.weights.get(t) : undefined;
          const codes = folded && !folded.quantizedAtRun;
          const name = folded?.codes ?? t;
          const w = name ? weightOf(index, name) : undefined;
          if (!w) return tensorRow(t || `(input ${k} omitted)`);
          const s = stats.get(name);
          return (
            <li key={`${t}-${k}`} className="inspector-tensor inspector-tensor--weight" data-testid="inspector-weight">
              <code className="inspector-tensor__name" title={name}>
                {name}
              </code>
              <span className="small">
                <span className="pill">
                  {folded ? (folded.params.bits >= 32 ? 'quantized bias' : 'quantized weight') : 'weight'}
                </span>{' '}
                {w.dims.length ? w.dims.join('×') : 'scalar'}
              </span>
              {folded && <QuantLine params={folded.params} testId="inspector-weight-quant" />}
              {s && 'statistics' in s && (
                <span className="inspector-stats small" data-testid={codes ? 'inspector-codes' : undefined}>
                  {codes ? `${folded.params.type} codes: ` : ''}min {num(s.statistics.min)} · max{' '}
                  {num(s.statistics.max)} · mean {num(s.statistics.mean)} · std {num(s.statistics.std)}
                  {s.statistics.zeros > 0 && ` · ${s.statistics.zeros} zeros`}
                  {codes &&
                    folded.params.scales?.length === 1 &&
                    ` · as float (code − zp) × scale: ${num((s.statistics.min - (folded.params.zeroPoints?.[0] ?? 0)) * folded.params.scales[0])} … ${num((s.statistics.max - (folded.params.zeroPoints?.[0] ?? 0)) * folded.params.scales[0])}`}
                  <Histogram counts={s.statistics.histogram} />
                </span>
              )}
              {s && 'error' in s && <span className="small muted">no statistics: {s.error}</span>}
            </li>
          );
        })}
      </ul>
      <h4 className="inspector__heading">Outputs</h4>
      <ul className="inspector-list">{node.output.map((t) => tensorRow(t))}</ul>
    </aside>
  );
}
