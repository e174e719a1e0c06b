/**
 * The graph step's single pane of the model this worker holds: its view (a QDQ model's Q/DQ folded onto edges) and
 * its layout, made here with the split view's code (workers/compare/laidOutPane.ts) on the model as it was decoded at
 * open, so the page neither folds nor lays out; it receives boxes, edges, the fold and positions, and builds only the
 * graph index of the structure it holds (for the inspector and the exclusion list).
 *
 * Plain object: tests call it directly; model.worker.ts only exposes it. No comlink, no DOM.
 */
import type { GraphViewOptions } from '../../src/core/graph/graphView.ts';
import type { LayoutResult } from '../../src/core/graph/layeredLayout.ts';
import { laidOutPane, paneParts, type PaneParts, type PaneProgress } from '../compare/laidOutPane.ts';
import { heldModel } from './modelApi.ts';

export interface GraphPane {
  view: PaneParts;
  layout: LayoutResult;
  /** The worker's time for the view and the layout, seconds. */
  seconds: number;
}

export const paneApi = {
  /** The view and layout of the model held under `handle`, reporting its phases. */
  graphPane(handle: string, options: GraphViewOptions = {}, onProgress?: PaneProgress): GraphPane {
    const start = performance.now();
    const { view, layout } = laidOutPane(heldModel(handle).opened.index, options, onProgress);
    return { view: paneParts(view), layout, seconds: (performance.now() - start) / 1000 };
  },
};

export type PaneApi = typeof paneApi;
