/**
 * Building an exclusion on the graph: the pick mode (inspect, start, end, single node; Shift, Alt and
 * Ctrl/⌘ pick a start, an end or a node whatever the mode), the current picks, what they resolve to
 * (highlighted on the graph before anything is committed, or why they resolve to nothing), a name,
 * and the buttons that add the subgraph, the picked nodes, or every node of an op type to the list.
 */
import { useState } from 'react';
import type { NodeId } from '../../../core/onnx/model.ts';
import { Callout } from '../../components/Callout.tsx';
import { useStudio } from '../../store/index.ts';
import type { PickMode } from '../../store/graphSlice.ts';
import type { PickPreview } from './resolution.ts';
import type { GraphView } from './viewModel.ts';

const MODES: { mode: PickMode; label: string; hint: string }[] = [
  { mode: 'inspect', label: 'Inspect', hint: 'a click shows the node' },
  { mode: 'start', label: 'Start', hint: 'a click picks a start node (or Shift+click)' },
  { mode: 'end', label: 'End', hint: 'a click picks an end node (or Alt+click)' },
  { mode: 'node', label: 'Node', hint: 'a click picks a single node (or Ctrl+click)' },
];

const listText = (ids: readonly string[], max = 3) => (ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} +${ids.length - max}`);

interface Props {
  view: GraphView;
  preview: PickPreview;
  opTypes: string[];
}

export function PickToolbar({ view, preview, opTypes }: Props) {
  const mode = useStudio((s) => s.graph.pickMode);
  const starts = useStudio((s) => s.graph.starts);
  const ends = useStudio((s) => s.graph.ends);
  const nodes = useStudio((s) => s.graph.nodes);
  const selected = useStudio((s) => s.graph.selected);
  const setMode = useStudio((s) => s.setPickMode);
  const togglePick = useStudio((s) => s.togglePick);
  const clearPicks = useStudio((s) => s.clearPicks);
  const addExclusion = useStudio((s) => s.addExclusion);
  const [name, setName] = useState('');
  const [opType, setOpType] = useState('');
  const [added, setAdded] = useState<{ name: string; list: string } | null>(null);
  const float16 = useStudio((s) => s.model.summary?.float16 === true);

  const selectedOp = selected ? view.index.nodes[view.index.indexOfId.get(selected as NodeId) ?? -1]?.op_type : undefined;
  const chosenOp = opType || selectedOp || opTypes[0] || '';
  const add = (entryName: string, make: (n: string) => Parameters<typeof addExclusion>[0]) => {
    const finalName = name.trim() || entryName;
    const entry = make(finalName);
    addExclusion(entry);
    setAdded({ name: finalName, list: entry.kind === 'subgraph' && entry.toFp32 ? 'Convert to FP32' : 'excluded' });
    setName('');
    clearPicks();
  };
  const chips = (ids: readonly NodeId[], role: 'start' | 'end' | 'node') =>
    ids.map((id) => (
      <button key={id} type="button" className={`pick-chip pick-chip--${role}`} title="Remove this pick" onClick={() => togglePick(role, id)}>
        {id} <span aria-hidden="true">×</span>
      </button>
    ));

  return (
    <div className="pick-toolbar" data-testid="pick-toolbar">
      <div className="pick-toolbar__row">
        <div className="segmented" role="radiogroup" aria-label="What a click on a node does">
          {MODES.map((m) => (
            <button key={m.mode} type="button" role="radio" aria-checked={mode === m.mode} title={m.hint}
              className={mode === m.mode ? 'segmented__item segmented__item--on' : 'segmented__item'} onClick={() => setMode(m.mode)} data-testid={`pick-mode-${m.mode}`}>
              {m.label}
            </button>
          ))}
        </div>
        <span className="muted small">Shift+click start · Alt+click end · Ctrl+click node · Esc clears · f fits</span>
      </div>
      {(starts.length > 0 || ends.length > 0 || nodes.length > 0) && (
        <div className="pick-toolbar__row pick-toolbar__picks" data-testid="pick-list">
          {starts.length > 0 && <span className="pick-group"><span className="pick-group__label">Starts</span>{chips(starts, 'start')}</span>}
          {ends.length > 0 && <span className="pick-group"><span className="pick-group__label">Ends</span>{chips(ends, 'end')}</span>}
          {nodes.length > 0 && <span className="pick-group"><span className="pick-group__label">Nodes</span>{chips(nodes, 'node')}</span>}
          <button type="button" className="button button--small" onClick={clearPicks}>Clear picks</button>
        </div>
      )}
      {preview.kind === 'subgraph' && (
        <p className="pick-preview" data-testid="pick-preview" data-count={preview.nodes.length}>
          The subgraph has <strong>{preview.nodes.length}</strong> node{preview.nodes.length === 1 ? '' : 's'} (highlighted): every node on a path from a start to an end.
        </p>
      )}
      {preview.kind === 'incomplete' && <p className="pick-preview muted" data-testid="pick-incomplete">{preview.message}</p>}
      {preview.kind === 'error' && (
        <Callout kind="error" testId="pick-error" data={{ 'data-error-name': preview.name }} title="These picks select no subgraph">
          <p>{preview.message}</p>
          <p className="callout__hint">Pick an end that follows the starts in the graph, or swap starts and ends.</p>
        </Callout>
      )}
      <div className="pick-toolbar__row">
        <label className="pick-name">
          <span className="small muted">Name</span>
          <input type="text" value={name} placeholder={preview.kind === 'subgraph' ? `${listText(starts)} → ${listText(ends)}` : 'name of the exclusion'}
            onChange={(e) => setName(e.target.value)} data-testid="exclusion-name" />
        </label>
        <button type="button" className="button button--primary" disabled={preview.kind !== 'subgraph'} data-testid="add-subgraph"
          onClick={() => add(`${listText(starts)} → ${listText(ends)}`, (n) => ({ kind: 'subgraph', name: n, starts: [...starts], ends: [...ends] }))}>
          Exclude subgraph
        </button>
        {float16 && (
          <button type="button" className="button" disabled={preview.kind !== 'subgraph'} data-testid="add-fp32-subgraph"
            title="Float16 model: convert this subgraph to float32 before quantizing (convert_fp16_to_fp32, subgraphs_to_include)"
            onClick={() => add(`${listText(starts)} → ${listText(ends)}`, (n) => ({ kind: 'subgraph', name: n, starts: [...starts], ends: [...ends], toFp32: true }))}>
            Convert subgraph to FP32
          </button>
        )}
        <button type="button" className="button" disabled={nodes.length === 0} data-testid="add-nodes"
          onClick={() => add(`nodes ${listText(nodes)}`, (n) => ({ kind: 'nodes', name: n, nodes: [...nodes] }))}>
          Exclude {nodes.length || ''} node{nodes.length === 1 ? '' : 's'}
        </button>
        <span className="pick-optype">
          <select value={chosenOp} onChange={(e) => setOpType(e.target.value)} aria-label="Op type to exclude" data-testid="add-op-type-select">
            {opTypes.map((t) => <option key={t} value={t}>{t}</option>)}
          </select>
          <button type="button" className="button" disabled={!chosenOp} data-testid="add-op-type"
            onClick={() => add(`all ${chosenOp}`, (n) => ({ kind: 'opTypes', name: n, opTypes: [chosenOp] }))}>
            Exclude op type
          </button>
        </span>
      </div>
      {added && <p className="small muted" data-testid="pick-added" role="status">Added “{added.name}” to the {added.list} list.</p>}
    </div>
  );
}
