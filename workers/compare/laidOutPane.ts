/**
 * One graph made ready to draw, off the main thread: its view (Q/DQ pairs folded onto the edges they quantize unless
 * shown as nodes, core/graph/graphView.ts) and its layout (core/graph/layeredLayout.ts). The comparison worker makes
 * both panes of the split view with it (compareApi.ts), and the model worker the graph step's single pane of the model
 * it holds (workers/model/paneApi.ts), so a quantized file opened alone is folded and laid out as the split view's
 * panes are, not on the page. What goes to the page is the view without its graph index (the page builds that one
 * index of the structure it holds, shared with the exclusion list): boxes, edges, the fold, the tensors' shapes.
 *
 * Plain functions: no comlink, no DOM.
 */
import type { GraphIndex } from '../../src/core/onnx/graphIndex.ts';
import {
  buildGraphView,
  layoutInputOf,
  tensorInfoMap,
  type GraphView,
  type GraphViewOptions,
} from '../../src/core/graph/graphView.ts';
import type { TensorSummary } from '../../src/core/onnx/modelSummary.ts';
import { hasQdq } from '../../src/core/graph/qdqFold.ts';
import { layeredLayout, type LayoutResult } from '../../src/core/graph/layeredLayout.ts';

/** A pane's progress: a fraction 0…1 and the phase's words. */
export type PaneProgress = (fraction: number, phase: string) => void;

export interface LaidOutPane {
  view: GraphView;
  layout: LayoutResult;
}

/**
 * A view as the page receives it: everything but the graph index, which the page builds from its structure; the
 * tensors' descriptions as a Map (the view's own are made as asked for, and could not be cloned).
 */
export type PaneParts = Omit<GraphView, 'index' | 'tensorInfo'> & { tensorInfo: Map<string, TensorSummary> };

/** The view of `index` (Q/DQ folded unless `options.showQdq`) and its layout, reporting the two phases. */
export function laidOutPane(index: GraphIndex, options: GraphViewOptions = {}, onProgress?: PaneProgress): LaidOutPane {
  const report = (fraction: number, phase: string) => void onProgress?.(fraction, phase);
  report(0, hasQdq(index) && !options.showQdq ? 'folding Q/DQ onto edges' : 'building the view');
  const view = buildGraphView(index, options);
  const boxes = view.boxes.length.toLocaleString('en-US');
  report(0.4, `laying out ${boxes} boxes`);
  const layout = layeredLayout(layoutInputOf(view), {
    onProgress: (f, phase) => report(0.4 + 0.6 * f, `laying out ${boxes} boxes: ${phase}`),
  });
  return { view, layout };
}

/** The view without its index, for the page. */
export function paneParts(view: GraphView): PaneParts {
  const { index, tensorInfo, ...parts } = view;
  return { ...parts, tensorInfo: tensorInfoMap(tensorInfo) };
}

/** The typed arrays of a pane that a worker entry transfers back rather than copies. */
export function paneBuffers(parts: PaneParts, layout: LayoutResult): ArrayBuffer[] {
  return [
    layout.x.buffer,
    layout.y.buffer,
    layout.rank.buffer,
    parts.boxOfNode.buffer,
    ...(parts.qdq ? [parts.qdq.folded.buffer] : []),
  ] as ArrayBuffer[];
}
