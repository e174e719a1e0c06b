/**
 * The drawing surface: creates the renderer for a laid-out view, feeds it the visual state from the
 * store, centres the selection when asked, and turns clicks into selection and picks. A plain click
 * picks in the current mode; Shift+click picks a start, Alt+click an end, Ctrl/⌘+click a single node,
 * whatever the mode. Inside a control-flow body (`bodyPrefix`) only single nodes are picked, by their scoped id
 * (`holder/then_branch/Conv_3`, as nodes_to_exclude takes them); a start or end pick there only selects. The pane takes the keyboard's focus: the arrow keys move the selection along the edges
 * (keyboardNavigation.ts) and bring it into view, Enter or Space does what a click on the selected box does (with
 * Shift, Alt or Ctrl/⌘ as a click would). It also exposes `window.__qsGraph` (positions of boxes on the page) so
 * end-to-end tests can click a box on the canvas through the real click handler.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, type KeyboardEvent, type MutableRefObject } from 'react';
import type { LayoutResult } from '../../../core/graph/layeredLayout.ts';
import type { NodeId } from '../../../core/onnx/model.ts';
import { useStudio } from '../../store/index.ts';
import type { PickRole } from '../../store/graphSlice.ts';
import { FLAG } from './flags.ts';
import { graphNavigator, type ArrowKey } from './keyboardNavigation.ts';
import { GraphRenderer, type TapModifiers } from './renderer.ts';
import { boxOfId, type GraphView } from './viewModel.ts';

export interface GraphTestHook {
  /** Page coordinates of a node's box (id as in the inspector), or null when it has none. */
  position(id: string): { x: number; y: number } | null;
  /** Whether the box is drawn by cytoscape now (clickable as a detailed box). */
  isDetailed(id: string): boolean;
  /** Whether the view is at rest: no window update or frame pending. */
  idle(): boolean;
  boxes: number;
  /** Ids of the boxes drawn with a state now (e.g. 'preview': the subgraph the picks resolve to). */
  idsWith(state: keyof typeof FLAG): string[];
  /** The fill a node's box is drawn with now (family, heat or precision colour), or null when it has no box. */
  fillOf(id: string): string | null;
  detailedBoxes(): number;
  /** The zoom now (1: 100 %). */
  zoom(): number;
  /** The edge labels drawn now and their boxes (model units). */
  edgeLabelBoxes(): { text: string; x1: number; y1: number; x2: number; y2: number }[];
  fit(): void;
  zoomBy(factor: number): void;
  panBy(dx: number, dy: number): void;
}

declare global {
  interface Window {
    __qsGraph?: GraphTestHook;
  }
}

interface Props {
  view: GraphView;
  layout: LayoutResult;
  flags: Uint8Array;
  heat: (string | null)[] | null;
  rendererRef: MutableRefObject<GraphRenderer | null>;
  onDrawn(canvas: HTMLElement): void;
  /** Inside a body: the prefix of its nodes' scoped ids (single-node picks only); null on the main graph. */
  bodyPrefix?: string | null;
}

function roleOf(modifiers: TapModifiers, mode: string): PickRole | null {
  if (modifiers.shift) return 'start';
  if (modifiers.alt) return 'end';
  if (modifiers.ctrl) return 'node';
  return mode === 'inspect' ? null : (mode as PickRole);
}

const ARROWS = new Set(['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight']);

/** What a click on a box does: pick it in the current mode (or the modifier's role) and select it. */
function tapBox(view: GraphView, box: number, modifiers: TapModifiers, bodyPrefix: string | null): void {
  const target = view.boxes[box];
  const { graph, togglePick, selectGraphNode } = useStudio.getState();
  if (target.kind === 'node') {
    const role = roleOf(modifiers, graph.pickMode);
    if (role && bodyPrefix === null) togglePick(role, target.id as NodeId);
    else if (role === 'node') togglePick(role, `${bodyPrefix}${target.id}` as NodeId);
  }
  selectGraphNode(target.id, { centre: false });
}

export function GraphCanvas({ view, layout, flags, heat, rendererRef, onDrawn, bodyPrefix = null }: Props) {
  const prefixRef = useRef(bodyPrefix);
  prefixRef.current = bodyPrefix;
  const host = useRef<HTMLDivElement>(null);
  const focusRequest = useStudio((s) => s.graph.focusRequest);
  const drawnRef = useRef(onDrawn);
  drawnRef.current = onDrawn;
  const stateRef = useRef({ flags, heat });
  stateRef.current = { flags, heat };

  // A layout effect: the renderer paints its first picture as it is created, and the "drawn" state it reports goes
  // into the same frame (React re-renders before the browser paints).
  useLayoutEffect(() => {
    const renderer = new GraphRenderer(
      host.current!,
      view,
      layout,
      {
        onTap: (box, modifiers) => tapBox(view, box, modifiers, prefixRef.current),
        onBackgroundTap() {
          useStudio.getState().selectGraphNode(null, { centre: false });
        },
        onDrawn: () => drawnRef.current(host.current!),
      },
      stateRef.current,
    );
    rendererRef.current = renderer;
    window.__qsGraph = {
      position: (id) => {
        const b = boxOfId(view, id);
        return b === undefined ? null : renderer.clientPosition(b);
      },
      isDetailed: (id) => {
        const b = boxOfId(view, id);
        return b !== undefined && renderer.isDetailed(b);
      },
      idle: () => renderer.idle,
      boxes: view.boxes.length,
      idsWith: (state) => renderer.boxesWith(FLAG[state]).map((b) => view.boxes[b].id),
      fillOf: (id) => {
        const b = boxOfId(view, id);
        return b === undefined ? null : renderer.fillOf(b);
      },
      detailedBoxes: () => renderer.detailedBoxes,
      zoom: () => renderer.currentZoom,
      edgeLabelBoxes: () => renderer.edgeLabelBoxes(),
      fit: () => renderer.fit(),
      zoomBy: (f) => renderer.zoomBy(f),
      panBy: (dx, dy) => renderer.panBy(dx, dy),
    };
    return () => {
      if (rendererRef.current === renderer) rendererRef.current = null;
      delete window.__qsGraph;
      renderer.destroy();
    };
  }, [view, layout, rendererRef]);

  useEffect(() => {
    rendererRef.current?.setVisualState(flags, heat);
  }, [flags, heat, rendererRef, view]);

  useEffect(() => {
    const selected = useStudio.getState().graph.selected;
    if (!selected || focusRequest === 0) return;
    const b = boxOfId(view, selected);
    if (b !== undefined) rendererRef.current?.focus(b);
  }, [focusRequest, view, rendererRef]);

  const navigator = useMemo(() => graphNavigator(view, layout), [view, layout]);
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const renderer = rendererRef.current;
    if (!renderer || e.target !== host.current) return;
    const selected = useStudio.getState().graph.selected;
    const current = selected === null ? undefined : boxOfId(view, selected);
    if (ARROWS.has(e.key) && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault(); // not the page's scroll
      const next = current === undefined ? renderer.centreBox() : navigator.step(current, e.key as ArrowKey);
      if (next < 0) return;
      useStudio.getState().selectGraphNode(view.boxes[next].id, { centre: false });
      renderer.reveal(next);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      const box = current ?? renderer.centreBox();
      if (box < 0) return;
      tapBox(view, box, { shift: e.shiftKey, alt: e.altKey, ctrl: e.ctrlKey || e.metaKey }, bodyPrefix);
      renderer.reveal(box);
    }
  };

  return (
    <div
      ref={host}
      className="graph-canvas"
      data-testid="graph-canvas"
      tabIndex={0}
      role="application"
      aria-roledescription="graph"
      aria-label="Graph. Arrow keys move the selection along the edges: up to inputs, down to consumers, left and right among siblings. Enter or Space picks the selected node as a click would."
      onKeyDown={onKeyDown}
    />
  );
}
