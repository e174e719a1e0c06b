/**
 * Loads the graph view of the open model. The model worker, which holds the decoded model, makes the view (a QDQ
 * model's Q/DQ pairs folded onto edges) and its layout with the split view's code (workers/model/paneApi.ts), while
 * the page builds the one graph index of the weight-less structure it holds, shared with the exclusion list
 * (useModelIndex.ts); the page shows the worker's phase meanwhile and never folds or lays out a large graph itself.
 * A newer model cancels the interest in an older one's result. Each step leaves a performance mark (graph:structure,
 * graph:view, graph:layout; the view adds graph:drawn) for the benchmark, each phase shown a graph:phase mark.
 *
 * Small graphs are laid out right here: a few milliseconds of work, where the worker's round trip (and its start
 * on the first model, about 0.1 s on 2 cores) would be most of the wait for the first picture.
 */
import { useEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import { buildGraphIndex } from '../../../core/onnx/graphIndex.ts';
import type { GraphProto } from '../../../core/onnx/model.ts';
import { layeredLayout, type LayoutResult } from '../../../core/graph/layeredLayout.ts';
import { graphPane, structureAtHand } from '../../remote/modelRemote.ts';
import { modelIndex, modelStructure } from '../exclusion/useModelIndex.ts';
import { nextTask } from '../../components/nextTask.ts';
import { buildGraphView, layoutInputOf, type GraphView, type GraphViewOptions } from './viewModel.ts';

const LOADING: GraphLoad = { status: 'loading', phase: 'reading the graph', fraction: 0 };

/** Up to this many boxes the layout runs on the main thread (measured: about 10 ms at 1,000 boxes). */
const MAIN_THREAD_LAYOUT_BOXES = 1500;

export type GraphLoad =
  | { status: 'loading'; phase: string; fraction: number }
  | { status: 'ready'; view: GraphView; layout: LayoutResult; seconds: number }
  | { status: 'error'; name: string; message: string };

/**
 * The graph of `handle` ready at once, when its structure is already on the page (sent with the open, or decoded
 * here) and small enough to lay out here: then the graph renders in the same pass as the model's summary, with no
 * loading state, effect and second render in between. Null otherwise (the graph loads in steps, below).
 */
function readyAtOnce(handle: string | null, options: GraphViewOptions): GraphLoad | null {
  const structure = handle ? structureAtHand(handle) : undefined;
  if (!structure || structure.node.length > MAIN_THREAD_LAYOUT_BOXES) return null;
  try {
    return laidOutHere(structure, options);
  } catch {
    return null; // the steps below run it again and show the error
  }
}

function laidOutHere(structure: GraphProto, options: GraphViewOptions): GraphLoad | null {
  const start = performance.now();
  performance.mark('graph:start');
  performance.mark('graph:structure');
  const view = buildGraphView(buildGraphIndex(structure), options);
  performance.mark('graph:view');
  if (view.boxes.length > MAIN_THREAD_LAYOUT_BOXES) return null;
  const layout = layeredLayout(layoutInputOf(view));
  performance.mark('graph:layout');
  return { status: 'ready', view, layout, seconds: (performance.now() - start) / 1000 };
}

/** `showQdq`: Q/DQ drawn as nodes rather than folded onto edges (viewModel.ts). */
export function useGraphView(handle: string | null, showQdq = false): GraphLoad {
  // The load and the handle (and Q/DQ form) it is for; one ready at the first render is not loaded again.
  const key = handle ? `${showQdq ? 'qdq' : 'folded'}|${handle}` : null;
  const [state, setState] = useState<{ key: string | null; load: GraphLoad }>(() => {
    const now = readyAtOnce(handle, { showQdq });
    return now ? { key, load: now } : { key: null, load: LOADING };
  });
  const shown = useRef(state.key);
  shown.current = state.key;
  useEffect(() => {
    if (!handle || shown.current === key) return;
    const now = readyAtOnce(handle, { showQdq });
    if (now) {
      setState({ key, load: now });
      return;
    }
    let live = true;
    let laidOut = false;
    const setLoad = (load: GraphLoad) => setState({ key, load });
    const start = performance.now();
    (async () => {
      performance.mark('graph:start');
      // The model worker makes the view (a QDQ model's Q/DQ folded there) and the layout of the model it holds, while
      // the page builds the one graph index of the structure it holds (shared with the exclusion list). The structure
      // comes first: a large model's comes from the same worker in parts, which would otherwise wait behind the whole
      // pane and leave the page's index to be built after it rather than beside it.
      const index = modelIndex(handle);
      index.catch(() => undefined); // awaited below
      await modelStructure(handle);
      if (!live) return;
      const pane = graphPane(handle, { showQdq }, (fraction, phase) => {
        // Progress comes through its own message port and may arrive after the result: every phase the worker went
        // through is marked, but one arriving after the result no longer moves the progress bar.
        if (!live) return;
        performance.mark('graph:phase', { detail: phase });
        if (laidOut) return;
        setLoad({ status: 'loading', phase, fraction: 0.05 + 0.95 * fraction });
      });
      pane.catch(() => undefined); // awaited below, after the index
      const built = await index;
      if (!live) return;
      performance.mark('graph:structure');
      const { view: parts, layout } = await pane;
      laidOut = true;
      await nextTask(); // the first render in a task of its own, not in the one that received the view
      if (!live) return;
      performance.mark('graph:view');
      performance.mark('graph:layout');
      const view: GraphView = { index: built, ...parts };
      // Rendered at once (not in a later task, after a frame of the old state): the first picture is painted as the
      // view mounts, so it reaches the screen in the next frame.
      if (live)
        flushSync(() => setLoad({ status: 'ready', view, layout, seconds: (performance.now() - start) / 1000 }));
    })().catch((e: unknown) => {
      const error = e as Error;
      if (live) setLoad({ status: 'error', name: error?.name || 'Error', message: error?.message ?? String(e) });
    });
    return () => {
      live = false;
    };
  }, [handle, key, showQdq]);
  return state.key === key ? state.load : LOADING;
}
