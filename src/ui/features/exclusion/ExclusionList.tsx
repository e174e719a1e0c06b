/**
 * The exclusion list: each entry's name, kind and what it resolves to in this model (node count, or why
 * it names nothing), resolved by the core as the quantizer will. Pointing at an entry, or focusing it
 * with the keyboard, highlights its nodes on the graph (hoverExclusion); Delete or the × removes it.
 */
import { useMemo } from 'react';
import type { GraphIndex } from '../../../core/onnx/graphIndex.ts';
import { useStudio, type ExclusionEntry } from '../../store/index.ts';
import { resolveEntry } from '../graph/resolution.ts';
import { bodyNodeLabel } from '../graph/subgraphScope.ts';
import type { GraphProto } from '../../../core/onnx/model.ts';

const KIND_LABELS: Record<ExclusionEntry['kind'], string> = {
  subgraph: 'Subgraph',
  nodes: 'Nodes',
  opTypes: 'Op types',
};

/** What the entry was made of, in a few words (a node inside a body with where its body is). */
function detail(entry: ExclusionEntry, main: GraphProto | null): string {
  if (entry.kind === 'subgraph') return `${entry.starts.join(', ')} → ${entry.ends.join(', ')}`;
  if (entry.kind === 'opTypes') return entry.opTypes.join(', ');
  return entry.nodes.map((id) => (main && id.includes('/') ? bodyNodeLabel(main, id) : id)).join(', ');
}

/** Whether an entry belongs to the FP16→FP32 list rather than the float list. */
export const isFp32Entry = (e: ExclusionEntry) => e.kind === 'subgraph' && e.toFp32 === true;

/**
 * One of the two lists picks go to: `float` (kept float, the default) or `fp32` (a float16 model's subgraphs
 * converted to float32 before quantizing). Same entries, same resolution, same keys.
 */
export function ExclusionList({ index, list = 'float' }: { index: GraphIndex | null; list?: 'float' | 'fp32' }) {
  const all = useStudio((s) => s.exclusions.entries);
  const entries = useMemo(() => all.filter((e) => isFp32Entry(e) === (list === 'fp32')), [all, list]);
  const hovered = useStudio((s) => s.exclusions.hovered);
  const hover = useStudio((s) => s.hoverExclusion);
  const remove = useStudio((s) => s.removeExclusion);
  // Resolution walks the graph: once per list or model change, not on every hover.
  const resolved = useMemo(
    () => new Map(entries.map((e) => [e.id, index ? resolveEntry(index, e) : null])),
    [entries, index],
  );

  if (entries.length === 0 && list === 'fp32') {
    return (
      <p className="exclusion-empty muted" data-testid="fp32-empty">
        No subgraph is converted: the float16 parts stay float16 and are quantized with QuantizeFP16. Pick start and end
        nodes on the graph and press “Convert subgraph to FP32”, or convert the whole model in the settings (step 2).
      </p>
    );
  }
  if (entries.length === 0) {
    return (
      <p className="exclusion-empty muted" data-testid="exclusion-empty">
        Nothing is excluded yet: every supported node will be quantized. Pick a subgraph (start and end nodes) or single
        nodes on the graph, or add node ids or op types below, to keep them in float.
      </p>
    );
  }

  return (
    <ul
      className="exclusion-list"
      data-testid={list === 'fp32' ? 'fp32-list' : 'exclusion-list'}
      aria-label={list === 'fp32' ? 'Converted from FP16 to FP32 before quantizing' : 'Excluded from quantization'}
    >
      {entries.map((entry) => {
        const r = resolved.get(entry.id) ?? null;
        const problem = r && 'error' in r ? r.error : null;
        const count = r && 'nodes' in r ? r.nodes.length + r.bodyNodes.length : null;
        const inBodies = r && 'nodes' in r && r.bodyNodes.length > 0 ? ` (${r.bodyNodes.length} inside subgraphs)` : '';
        return (
          <li
            key={entry.id}
            className={`exclusion-entry${hovered === entry.id ? ' exclusion-entry--hovered' : ''}${problem ? ' exclusion-entry--problem' : ''}`}
            tabIndex={0}
            data-testid="exclusion-entry"
            data-entry-kind={entry.kind}
            data-node-count={count ?? ''}
            aria-label={`${entry.name}: ${KIND_LABELS[entry.kind]}, ${problem ? 'names no node' : count === null ? 'resolving' : `${count} nodes`}`}
            onMouseEnter={() => hover(entry.id)}
            onMouseLeave={() => hover(null)}
            onFocus={() => hover(entry.id)}
            onBlur={() => hover(null)}
            onKeyDown={(e) => {
              if (e.key === 'Delete' || e.key === 'Backspace') {
                e.preventDefault();
                remove(entry.id);
              }
            }}
          >
            <div className="exclusion-entry__main">
              <span className="exclusion-entry__name" data-testid="exclusion-entry-name">
                {entry.name}
              </span>
              <span className="pill">{KIND_LABELS[entry.kind]}</span>
              <span className="exclusion-entry__count" data-testid="exclusion-entry-count">
                {problem ? 'names no node' : count === null ? '…' : `${count} node${count === 1 ? '' : 's'}${inBodies}`}
              </span>
            </div>
            <div className="exclusion-entry__detail muted small">{detail(entry, index?.graph ?? null)}</div>
            {problem && (
              <div className="exclusion-entry__problem small" role="note">
                {problem}
              </div>
            )}
            <button
              type="button"
              className="exclusion-entry__remove"
              aria-label={`Remove ${entry.name}`}
              title="Remove"
              data-testid="exclusion-remove"
              onClick={() => remove(entry.id)}
            >
              ×
            </button>
          </li>
        );
      })}
    </ul>
  );
}
