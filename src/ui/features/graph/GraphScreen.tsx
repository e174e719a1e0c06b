/**
 * The graph step: the open model drawn top-down as Netron does (see renderer.ts for how large graphs
 * stay fluid), with search, fit and zoom, the picking toolbar that builds exclusions, the node
 * inspector, excluded nodes shaded, the hovered list entry highlighted, and a heat map when another
 * screen sets one. Loaded on first use (App lazy-loads it), so cytoscape is fetched only then.
 *
 * Colour by op family (the default, with the evaluation's heat map when it set one) or by precision in the
 * last quantization (8-bit, 16-bit activation or weight, float), so a mixed-precision model shows where it
 * left 8 bits.
 *
 * A QDQ model (already quantized) is read as quantized: its Q/DQ pairs folded onto the edges they quantize (a
 * toggle shows them as nodes), its precision colours and layer table read from the file (filePrecisions.ts).
 * Two models side by side (float and quantized after a run, or two dropped files): ../compare/SplitView.tsx.
 *
 * Inside an If/Loop/Scan body (opened from a control-flow node's inspector, or from a body node elsewhere) a node is
 * kept float as on the main graph, by its scoped id (`holder/then_branch/Conv_3`, what nodes_to_exclude takes): a
 * Node-mode click (or Enter), Ctrl+click or Ctrl+Enter picks it, "Exclude node" adds it, and the body shades what the list keeps float.
 * Start/end subgraphs and op types are picked on the main graph; the scope bar says so.
 *
 * Keys: "/" or Ctrl+F search, Enter next result, Esc clears the picks, f fits the graph, 0 shows it at 100 %, + and −
 * zoom a step (zoomSteps.ts), p switches between colouring by family and by precision. On the focused canvas, the
 * arrow keys move the selection and Enter or Space picks (GraphCanvas).
 */
import { notifyGraphDrawn } from '../../components/useIdleMount.ts';
import { useEffect, useMemo, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { filePrecisions } from './filePrecisions.ts';
import { QdqLayerTable } from './QdqLayerTable.tsx';
import { NodeDataExport } from './NodeDataExport.tsx';
import { CompareLauncher } from '../compare/CompareLauncher.tsx';
import { SplitView } from '../compare/SplitView.tsx';
import { onPairProgress, pairInProgress } from '../compare/compareRequests.ts';
import type { CompareModel } from '../compare/compareModel.ts';
import { Callout } from '../../components/Callout.tsx';
import { ErrorCallout } from '../../components/ErrorCallout.tsx';
import { exact } from '../../components/format.ts';
import { useStudio } from '../../store/index.ts';
import type { NodeId } from '../../../core/onnx/model.ts';
import { GraphCanvas } from './GraphCanvas.tsx';
import { GraphSearch } from './GraphSearch.tsx';
import { HeatLegend } from './HeatLegend.tsx';
import { PrecisionLegend } from './PrecisionLegend.tsx';
import { precisionScale } from './precisionColours.ts';
import { nodePrecisions } from '../../../core/quantize/precisionClasses.ts';
import { NodeInspector } from './NodeInspector.tsx';
import { PickToolbar } from './PickToolbar.tsx';
import { FAMILY_COLOURS, FAMILY_LABELS, type OpFamily } from './families.ts';
import { heatScale, scopedHeat } from './heat.ts';
import type { GraphRenderer } from './renderer.ts';
import { excludedNodes, previewSubgraph, type BodyScope } from './resolution.ts';
import { useGraphView, type GraphLoad } from './useGraphView.ts';
import { bodyNodePath, scopeChain, scopeLabel, scopePrefix, scopeView, type ScopeStep } from './subgraphScope.ts';
import { visualFlags } from './visualState.ts';
import type { GraphView } from './viewModel.ts';
import type { LayoutResult } from '../../../core/graph/layeredLayout.ts';
import './graph.css';

/** The toolbar's view buttons and their keys: what each does to the drawing (the key is named in the title). */
const VIEW_BUTTONS: readonly {
  label: string;
  keys: readonly string[];
  title: string;
  ariaLabel?: string;
  testId?: string;
  act: (renderer: GraphRenderer) => void;
}[] = [
  { label: '+', keys: ['+', '='], ariaLabel: 'Zoom in', title: 'Zoom in (+)', act: (r) => r.zoomStep(1) },
  { label: '−', keys: ['-'], ariaLabel: 'Zoom out', title: 'Zoom out (−)', act: (r) => r.zoomStep(-1) },
  { label: 'Fit', keys: ['f'], testId: 'graph-fit', title: 'Fit the whole graph in view (f)', act: (r) => r.fit() },
  {
    label: '100 %',
    keys: ['0'],
    testId: 'graph-actual-size',
    title: 'Boxes at their size, labels readable (0)',
    act: (r) => r.actualSize(),
  },
];

export default function GraphScreen() {
  const handle = useStudio((s) => s.model.handle);
  const [showQdq, setShowQdq] = useState(false);
  // The split view, with the model it was opened on (a new model closes it), and whether a pair dropped on the page
  // opened it.
  const [compare, setCompare] = useState<{ handle: string | null; model: CompareModel; pair: boolean } | null>(null);
  const comparing = compare && compare.handle === handle ? compare.model : null;
  // Two models dropped together: the split view replaces the first's single pane, which is not prepared meanwhile
  // (it is, should the comparison fail or the split view be closed).
  const pairDropped = useSyncExternalStore(onPairProgress, pairInProgress);
  const load = useGraphView(pairDropped || (comparing && compare?.pair) ? null : handle, showQdq);
  return (
    <section
      className="graph-screen"
      aria-labelledby="graph-title"
      data-testid="graph-screen"
      data-graph-status={load.status}
    >
      <header className="flow__header">
        <h2 id="graph-title" className="flow__title">
          Graph
        </h2>
        <p className="flow__lead muted">
          Pick what stays in float: start and end nodes of a subgraph, single nodes, or op types.
        </p>
      </header>
      <CompareLauncher
        handle={handle}
        quantizedFile={load.status === 'ready' && load.view.qdq !== null}
        onOpen={(model) => setCompare({ handle, model, pair: pairInProgress() })}
      />
      {comparing ? (
        <SplitView model={comparing} onClose={() => setCompare(null)} />
      ) : (
        <GraphBody load={load} handle={handle} showQdq={showQdq} setShowQdq={setShowQdq} />
      )}
    </section>
  );
}

/** The main graph's scope: one array, so the memo below sees the same path on every render. */
const MAIN_GRAPH: ScopeStep[] = [];

function GraphBody({
  load,
  handle,
  showQdq,
  setShowQdq,
}: {
  load: GraphLoad;
  handle: string | null;
  showQdq: boolean;
  setShowQdq(shown: boolean): void;
}) {
  // The scope shown: the main graph (empty path) or a subgraph opened from a control-flow node's inspector.
  const [scope, setScope] = useState<{ handle: string | null; path: ScopeStep[] }>({ handle, path: [] });
  const path = scope.handle === handle ? scope.path : MAIN_GRAPH;
  const body = useMemo(() => {
    if (load.status !== 'ready' || path.length === 0) return null;
    const chain = scopeChain(load.view.index.graph, path);
    return chain ? scopeView(chain, { showQdq }) : null;
  }, [load, path, showQdq]);
  const goTo = (next: ScopeStep[]) => {
    useStudio.getState().selectGraphNode(null);
    setScope({ handle, path: next });
  };
  // A node inside a body selected elsewhere (the per-layer table's `holder/then_branch/Conv_3`): open its body.
  const selected = useStudio((s) => s.graph.selected);
  useEffect(() => {
    if (load.status !== 'ready' || !selected || load.view.index.indexOfId.has(selected as NodeId)) return;
    const found = bodyNodePath(load.view.index.graph, selected);
    if (!found) return;
    setScope({ handle, path: found.path });
    useStudio.getState().selectGraphNode(found.nodeId);
  }, [load, selected, handle]);
  if (load.status === 'loading') {
    return (
      <div className="card graph-loading" data-testid="graph-progress" role="status">
        <span className="small">Preparing the graph: {load.phase}…</span>
        <progress max={1} value={load.fraction} />
      </div>
    );
  }
  if (load.status === 'error') {
    return <ErrorCallout error={load} testId="graph-error" title="The graph could not be drawn" />;
  }
  if (load.view.boxes.length === 0) {
    return (
      <p className="muted" data-testid="graph-empty">
        This model’s graph has no nodes, inputs or outputs to draw.
      </p>
    );
  }
  const toggle = load.view.qdq ? (
    <label
      className="small graph-qdq-toggle"
      title="Show QuantizeLinear and DequantizeLinear as nodes instead of folding them onto the edges they quantize"
    >
      <input
        type="checkbox"
        checked={showQdq}
        onChange={(e) => setShowQdq(e.target.checked)}
        data-testid="graph-show-qdq"
      />{' '}
      Q/DQ as nodes
    </label>
  ) : null;
  const open = (nodeId: string, attribute: string) => goTo([...path, { nodeId, attribute }]);
  if (body) {
    const bar = (
      <nav className="graph-scope small" aria-label="Subgraph path" data-testid="graph-scope" data-depth={path.length}>
        <button type="button" className="button button--small" onClick={() => goTo([])} data-testid="graph-scope-main">
          Main graph
        </button>
        {path.map((step, k) => (
          <span key={k}>
            {' › '}
            <button
              type="button"
              className="button button--small"
              disabled={k === path.length - 1}
              onClick={() => goTo(path.slice(0, k + 1))}
            >
              {step.nodeId} · {step.attribute}
            </button>
          </span>
        ))}
        <span className="muted" data-testid="graph-scope-note">
          {' '}
          · a subgraph: here single nodes can be kept float (Node mode, or Ctrl+click); start/end subgraphs and op types
          are picked on the main graph (op-type exclusions reach the subgraphs too)
        </span>
      </nav>
    );
    return (
      <GraphWorkspace
        key={JSON.stringify(path)}
        view={body.view}
        layout={body.layout}
        handle={handle!}
        seconds={0}
        tools={toggle}
        scopeBar={bar}
        onOpenSubgraph={open}
        body={{ main: load.view.index, prefix: scopePrefix(path), label: scopeLabel(path) }}
      />
    );
  }
  return (
    <GraphWorkspace
      view={load.view}
      layout={load.layout}
      handle={handle!}
      seconds={load.seconds}
      tools={toggle}
      onOpenSubgraph={open}
    />
  );
}

/**
 * The graph of a laid-out view with its tools. `rehearsal` (the idle page's warm-up, ui/warmUp.tsx) draws it without
 * telling anything outside: no "drawn" mark, and the later steps are not released.
 */
export function GraphWorkspace({
  view,
  layout,
  handle,
  seconds,
  rehearsal = false,
  tools = null,
  scopeBar = null,
  onOpenSubgraph,
  body = null,
}: {
  view: GraphView;
  layout: LayoutResult;
  handle: string;
  seconds: number;
  rehearsal?: boolean;
  tools?: ReactNode;
  /** Inside a subgraph: the path back, and what picking does there. */
  scopeBar?: ReactNode;
  onOpenSubgraph?(nodeId: string, attribute: string): void;
  /**
   * Inside a body: the main graph's index (exclusions resolve there), the prefix its nodes' ids carry in the heat map,
   * the per-layer table and nodes_to_exclude (`holder/then_branch/`, nested), and its path in words; null on the main graph.
   */
  body?: (BodyScope & { label: string }) | null;
}) {
  const rendererRef = useRef<GraphRenderer | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const [matches, setMatches] = useState<number[]>([]);
  const entries = useStudio((s) => s.exclusions.entries);
  const hoveredId = useStudio((s) => s.exclusions.hovered);
  const starts = useStudio((s) => s.graph.starts);
  const ends = useStudio((s) => s.graph.ends);
  const picked = useStudio((s) => s.graph.nodes);
  const selected = useStudio((s) => s.graph.selected);
  const storeHeat = useStudio((s) => s.graph.heat);
  // Inside a body, the heat values of its nodes are keyed `holder/attribute/node` (the per-layer table's ids).
  const heatScope = body?.prefix ?? '';
  const heat = useMemo(() => scopedHeat(storeHeat, heatScope), [storeHeat, heatScope]);
  const setHeat = useStudio((s) => s.setGraphHeat);
  const colourBy = useStudio((s) => s.graph.colourBy);
  const setColourBy = useStudio((s) => s.setGraphColouring);
  const quantized = useStudio((s) => s.run.result);
  const modelFile = useStudio((s) => s.model.fileName);
  const { index } = view;
  /** A QDQ file's own precisions (the quantizer takes float models only, so a run result never describes one). */
  const fromFile = useMemo(() => (view.qdq ? filePrecisions(view) : null), [view]);

  const main = body?.main ?? null;
  const excluded = useMemo(
    () => excludedNodes(index, entries, main && { main, prefix: heatScope }),
    [index, entries, main, heatScope],
  );
  // Start and end picks are the main graph's; inside a body only its own single-node picks (by scoped id) are drawn.
  const preview = useMemo(
    () => (main ? ({ kind: 'empty' } as const) : previewSubgraph(index, starts, ends)),
    [main, index, starts, ends],
  );
  const shownPicks = useMemo(
    () => (main ? picked.filter((id) => id.startsWith(heatScope)).map((id) => id.slice(heatScope.length)) : picked),
    [main, picked, heatScope],
  );
  // A body-node entry highlights, on the main graph, the If/Loop/Scan holding its nodes.
  const hovered = useMemo(
    () => (hoveredId ? [...(excluded.nodesOf.get(hoveredId) ?? []), ...(excluded.holdersOf.get(hoveredId) ?? [])] : []),
    [excluded, hoveredId],
  );
  const flags = useMemo(
    () =>
      visualFlags(view, {
        excluded: excluded.excluded,
        preview: preview.kind === 'subgraph' ? preview.nodes : [],
        hovered,
        starts: main ? [] : starts,
        ends: main ? [] : ends,
        picked: shownPicks,
        selected,
        matches,
      }),
    [view, excluded, preview, hovered, main, starts, ends, shownPicks, selected, matches],
  );
  const scale = useMemo(() => (heat ? heatScale(view, heat) : null), [view, heat]);
  const precision = useMemo(
    () =>
      fromFile
        ? precisionScale(view, fromFile)
        : quantized
          ? precisionScale(view, nodePrecisions(quantized.report))
          : null,
    [view, quantized, fromFile],
  );
  const precisionSource = fromFile ? (modelFile ?? 'this model') : (quantized?.fileName ?? '');
  const byPrecision = colourBy === 'precision' && precision !== null;
  const colourableRef = useRef(false);
  colourableRef.current = precision !== null;
  const colours = byPrecision ? precision.colours : (scale?.colours ?? null);
  const families = useMemo(() => [...new Set(view.boxes.map((b) => b.family))] as OpFamily[], [view]);

  useEffect(() => {
    const typing = (t: EventTarget | null) =>
      t instanceof HTMLElement && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName));
    const onKey = (e: KeyboardEvent) => {
      if ((e.key === 'f' || e.key === 'F') && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        searchRef.current?.focus();
        return;
      }
      if (typing(e.target) || e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === '/') {
        e.preventDefault();
        searchRef.current?.focus();
      } else if (e.key === 'Escape') {
        useStudio.getState().clearPicks();
      } else if (e.key === 'p') {
        const { graph, setGraphColouring } = useStudio.getState();
        if (colourableRef.current) setGraphColouring(graph.colourBy === 'precision' ? 'family' : 'precision');
      } else {
        const button = VIEW_BUTTONS.find((b) => b.keys.includes(e.key));
        if (button && rendererRef.current) button.act(rendererRef.current);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  return (
    <div className="graph-workspace" data-testid="graph-workspace" data-graph-drawn="false">
      {/* The picking tools first, the search and zoom right above the canvas: the search's results drop over the graph they point into, not over the picking tools. */}
      {scopeBar}
      <PickToolbar
        preview={preview}
        main={main?.graph ?? index.graph}
        body={body && { prefix: body.prefix, label: body.label }}
      />
      <div className="graph-toolbar">
        <GraphSearch view={view} inputRef={searchRef} onMatches={setMatches} />
        <div className="graph-toolbar__buttons">
          {VIEW_BUTTONS.map((b) => (
            <button
              key={b.label}
              type="button"
              className="button button--small"
              onClick={() => {
                if (rendererRef.current) b.act(rendererRef.current);
              }}
              aria-label={b.ariaLabel}
              data-testid={b.testId}
              title={b.title}
            >
              {b.label}
            </button>
          ))}
        </div>
        <fieldset className="graph-colouring" data-testid="graph-colouring">
          <legend className="small">Colour by</legend>
          <label className="small">
            <input
              type="radio"
              name="graph-colouring"
              value="family"
              checked={!byPrecision}
              onChange={() => setColourBy('family')}
              data-testid="colour-by-family"
            />{' '}
            op family
          </label>
          <label
            className="small"
            title={
              fromFile
                ? "Precision of each node, read from the model's Q/DQ (p)"
                : quantized
                  ? 'Precision of each node in the last quantization (p)'
                  : 'Quantize the model first (or open a quantized one): the colours show the precision each node got'
            }
          >
            <input
              type="radio"
              name="graph-colouring"
              value="precision"
              checked={byPrecision}
              disabled={!precision}
              onChange={() => setColourBy('precision')}
              data-testid="colour-by-precision"
            />{' '}
            precision
          </label>
        </fieldset>
        {tools}
        {!rehearsal && <NodeDataExport view={view} />}
        <span className="muted small" data-testid="graph-counts">
          {exact(index.nodes.length)} nodes · {exact(view.boxes.length)} boxes · laid out in {seconds.toFixed(2)} s
        </span>
      </div>
      {excluded.problems.size > 0 && (
        <Callout kind="warning" testId="graph-exclusion-problems" title="Some exclusions name nothing in this model">
          {entries
            .filter((e) => excluded.problems.has(e.id))
            .map((e) => (
              <p key={e.id}>
                “{e.name}”: {excluded.problems.get(e.id)}
              </p>
            ))}
        </Callout>
      )}
      {byPrecision && <PrecisionLegend scale={precision} source={precisionSource} />}
      {!byPrecision && heat && scale && <HeatLegend heat={heat} scale={scale} onClear={() => setHeat(null)} />}
      <div className="graph-body">
        <GraphCanvas
          view={view}
          layout={layout}
          flags={flags}
          heat={colours}
          rendererRef={rendererRef}
          bodyPrefix={body?.prefix ?? null}
          onDrawn={(canvas) => {
            if (rehearsal) return;
            performance.mark('graph:drawn');
            // Marked on the element, not through state: a state change would re-render the whole workspace in the task
            // that paints the first picture, and hold that frame back (React never rewrites the constant it rendered).
            canvas.closest('.graph-workspace')?.setAttribute('data-graph-drawn', 'true');
            notifyGraphDrawn();
          }}
        />
        <NodeInspector
          view={view}
          handle={handle}
          nodesOf={excluded.nodesOf}
          onOpenSubgraph={onOpenSubgraph}
          scopePrefix={heatScope}
        />
      </div>
      {!byPrecision && (
        <ul className="graph-families small" aria-label="Colours of op families" data-testid="graph-families">
          {/* Under a heat map the boxes wear its colours (its legend is above): op-family swatches would mislabel them. */}
          {!colours &&
            families.map((f) => (
              <li key={f}>
                <span className="graph-families__swatch" style={{ background: FAMILY_COLOURS[f] }} /> {FAMILY_LABELS[f]}
              </li>
            ))}
          <li>
            <span className="graph-families__swatch graph-families__swatch--excluded" /> excluded (stays float)
          </li>
        </ul>
      )}
      {view.qdq && fromFile && <QdqLayerTable view={view} precisions={fromFile} />}
    </div>
  );
}
