/**
 * Building an exclusion on the graph: the pick mode (inspect, start, end, single node; Shift, Alt and
 * Ctrl/⌘ pick a start, an end or a node whatever the mode), the current picks, what they resolve to
 * (highlighted on the graph before anything is committed, or why they resolve to nothing), a name,
 * and the buttons that add the subgraph or the picked nodes to the list. Node ids typed in and whole op types are
 * added on the "Keep in float" card (exclusion/AddExclusion.tsx), the one control for each: the toolbar repeated
 * the card's op-type list and button.
 *
 * Its height does not change as picks come and go (the graph below must not jump under the pointer): the picks sit
 * on one row that scrolls sideways, and what they resolve to (or why not, or what was just added) on one status row
 * of a reserved height.
 *
 * Inside a control-flow body (`body`) it offers what works there: single nodes kept float, picked by their scoped id
 * (`holder/then_branch/Conv_3`, the id nodes_to_exclude and the per-layer table use); start/end subgraphs are
 * picked on the main graph. A body node's pick reads as its id and where its body is, wherever it is shown.
 */
import { useState } from 'react';
import type { GraphProto, NodeId } from '../../../core/onnx/model.ts';
import { useStudio } from '../../store/index.ts';
import type { PickMode } from '../../store/graphSlice.ts';
import type { PickPreview } from './resolution.ts';
import { bodyNodeLabel } from './subgraphScope.ts';
import { Segmented, type SegmentedChoice } from '../../components/Segmented.tsx';

const MODES: readonly SegmentedChoice<PickMode>[] = [
  { value: 'inspect', label: 'Inspect', hint: 'a click shows the node' },
  { value: 'start', label: 'Start', hint: 'a click picks a start node (or Shift+click)' },
  { value: 'end', label: 'End', hint: 'a click picks an end node (or Alt+click)' },
  { value: 'node', label: 'Node', hint: 'a click picks a single node (or Ctrl+click)' },
];

/** Inside a body, a plain click inspects or picks a single node (start and end picks are the main graph's). */
const BODY_MODES = MODES.filter((m) => m.value === 'inspect' || m.value === 'node');

const listText = (ids: readonly string[], max = 3) =>
  ids.length <= max ? ids.join(', ') : `${ids.slice(0, max).join(', ')} +${ids.length - max}`;

interface Props {
  preview: PickPreview;
  /** The main graph: a body node's pick is named from it (`then_gemm (inside if · then_branch)`). */
  main: GraphProto;
  /** The body drawn, if any: the prefix of its nodes' scoped ids and its path as the scope bar shows it. */
  body?: { prefix: string; label: string } | null;
}

export function PickToolbar({ preview, main, body = null }: Props) {
  const mode = useStudio((s) => s.graph.pickMode);
  const starts = useStudio((s) => s.graph.starts);
  const ends = useStudio((s) => s.graph.ends);
  const nodes = useStudio((s) => s.graph.nodes);
  const setMode = useStudio((s) => s.setPickMode);
  const togglePick = useStudio((s) => s.togglePick);
  const clearPicks = useStudio((s) => s.clearPicks);
  const addExclusion = useStudio((s) => s.addExclusion);
  const [name, setName] = useState('');
  const [added, setAdded] = useState<{ name: string; list: string } | null>(null);
  const float16 = useStudio((s) => s.model.summary?.float16 === true);

  const hasPicks = nodes.length > 0 || (!body && (starts.length > 0 || ends.length > 0));
  /** A pick as it reads here: a node of the body drawn by its id there, another body's with where its body is. */
  const labelOf = (id: string) =>
    body && id.startsWith(body.prefix) ? id.slice(body.prefix.length) : id.includes('/') ? bodyNodeLabel(main, id) : id;
  const nodesName =
    body && nodes.every((id) => id.startsWith(body.prefix))
      ? `${listText(nodes.map(labelOf))} (inside ${body.label})`
      : `nodes ${listText(nodes.map(labelOf))}`;
  const add = (entryName: string, make: (n: string) => Parameters<typeof addExclusion>[0]) => {
    const finalName = name.trim() || entryName;
    const entry = make(finalName);
    addExclusion(entry);
    setAdded({ name: finalName, list: entry.kind === 'subgraph' && entry.toFp32 ? 'Convert to FP32' : 'excluded' });
    setName('');
    clearPicks();
  };
  const subgraphName = `${listText(starts)} → ${listText(ends)}`;
  /** The picked subgraph kept float, or (toFp32) converted to float32 before quantizing. */
  const addSubgraph = (toFp32: boolean) =>
    add(subgraphName, (n) => ({
      kind: 'subgraph',
      name: n,
      starts: [...starts],
      ends: [...ends],
      ...(toFp32 ? { toFp32: true } : {}),
    }));
  const chips = (ids: readonly NodeId[], role: 'start' | 'end' | 'node') =>
    ids.map((id) => (
      <button
        key={id}
        type="button"
        className={`pick-chip pick-chip--${role}`}
        title="Remove this pick"
        onClick={() => togglePick(role, id)}
      >
        {labelOf(id)} <span aria-hidden="true">×</span>
      </button>
    ));

  return (
    <div className="pick-toolbar" data-testid="pick-toolbar">
      <div className="pick-toolbar__row">
        <Segmented
          choices={body ? BODY_MODES : MODES}
          value={body && mode !== 'node' ? 'inspect' : mode}
          onChange={setMode}
          label="What a click on a node does"
          testIdPrefix="pick-mode-"
        />
        <span className="muted small">
          {body
            ? 'Ctrl+click or Ctrl+Enter picks a node · Esc clears · f fits'
            : 'Shift+click start · Alt+click end · Ctrl+click node · Esc clears · f fits'}
        </span>
      </div>
      <div className="pick-toolbar__row pick-toolbar__picks">
        {hasPicks ? (
          <span className="pick-toolbar__chips" data-testid="pick-list">
            {!body && starts.length > 0 && (
              <span className="pick-group">
                <span className="pick-group__label">Starts</span>
                {chips(starts, 'start')}
              </span>
            )}
            {!body && ends.length > 0 && (
              <span className="pick-group">
                <span className="pick-group__label">Ends</span>
                {chips(ends, 'end')}
              </span>
            )}
            {nodes.length > 0 && (
              <span className="pick-group">
                <span className="pick-group__label">Nodes</span>
                {chips(nodes, 'node')}
              </span>
            )}
          </span>
        ) : (
          <span className="pick-toolbar__chips muted small">
            {body
              ? 'No picks yet: pick single nodes of this subgraph to keep them float.'
              : 'No picks yet: pick start and end nodes (or single nodes) on the graph.'}
          </span>
        )}
        <button type="button" className="button button--small" onClick={clearPicks} disabled={!hasPicks}>
          Clear picks
        </button>
      </div>
      <div className="pick-toolbar__status" aria-live="polite">
        {preview.kind === 'subgraph' ? (
          <p className="pick-preview" data-testid="pick-preview" data-count={preview.nodes.length}>
            The subgraph has <strong>{preview.nodes.length}</strong> node{preview.nodes.length === 1 ? '' : 's'}{' '}
            (highlighted): every node on a path from a start to an end.
          </p>
        ) : preview.kind === 'incomplete' ? (
          <p className="pick-preview muted" data-testid="pick-incomplete">
            {preview.message}
          </p>
        ) : preview.kind === 'error' ? (
          <p
            className="pick-preview pick-preview--error"
            role="alert"
            data-testid="pick-error"
            data-error-name={preview.name}
          >
            <strong>These picks select no subgraph.</strong> {preview.message} Pick an end that follows the starts in
            the graph, or swap starts and ends.
          </p>
        ) : added ? (
          <p className="pick-preview muted" data-testid="pick-added" role="status">
            Added “{added.name}” to the {added.list} list.
          </p>
        ) : (
          <p className="pick-preview muted">Picks are highlighted on the graph before anything is added.</p>
        )}
      </div>
      <div className="pick-toolbar__row">
        <label className="pick-name">
          <span className="small muted">Name</span>
          <input
            type="text"
            value={name}
            placeholder={
              preview.kind === 'subgraph' ? subgraphName : nodes.length > 0 ? nodesName : 'name of the exclusion'
            }
            onChange={(e) => setName(e.target.value)}
            data-testid="exclusion-name"
          />
        </label>
        {!body && (
          <button
            type="button"
            className="button button--primary"
            disabled={preview.kind !== 'subgraph'}
            data-testid="add-subgraph"
            onClick={() => addSubgraph(false)}
          >
            Exclude subgraph
          </button>
        )}
        {float16 && !body && (
          <button
            type="button"
            className="button"
            disabled={preview.kind !== 'subgraph'}
            data-testid="add-fp32-subgraph"
            title="Float16 model: convert this subgraph to float32 before quantizing (convert_fp16_to_fp32, subgraphs_to_include)"
            onClick={() => addSubgraph(true)}
          >
            Convert subgraph to FP32
          </button>
        )}
        <button
          type="button"
          className={body ? 'button button--primary' : 'button'}
          disabled={nodes.length === 0}
          data-testid="add-nodes"
          onClick={() => add(nodesName, (n) => ({ kind: 'nodes', name: n, nodes: [...nodes] }))}
        >
          Exclude {nodes.length || ''} picked node{nodes.length === 1 ? '' : 's'}
        </button>
      </div>
    </div>
  );
}
