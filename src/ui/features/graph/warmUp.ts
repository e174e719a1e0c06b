/**
 * The graph step's code run once on a tiny graph while the page is idle, so that the first real model finds it
 * compiled. On a fresh page V8 compiles a function lazily on its first call and runs it in the interpreter until
 * it is called often: measured on MNIST's first drop (Chromium trace), the view and the layout took 27 ms of a
 * 98 ms first draw, about 1 ms once warm. The tiny model's graph (core/onnx/tinyModel.ts) goes through the same
 * steps as a dropped model's structure (index, view, layered layout, the renderer's first picture on a detached
 * canvas) and is thrown away; cytoscape is not attached (the renderer is destroyed before its frame).
 */
import { buildGraphIndex } from '../../../core/onnx/graphIndex.ts';
import { tinyModel } from '../../../core/onnx/tinyModel.ts';
import { layeredLayout } from '../../../core/graph/layeredLayout.ts';
import { GraphRenderer } from './renderer.ts';
import { buildGraphView, layoutInputOf } from './viewModel.ts';

/** Runs the first-draw path once on a tiny graph, off screen. Never throws: a failure only means no warm-up. */
export function warmGraphPath(): void {
  try {
    const view = buildGraphView(buildGraphIndex(tinyModel().graph!));
    const layout = layeredLayout(layoutInputOf(view));
    const host = document.createElement('div');
    host.style.cssText = 'position:absolute;left:-10000px;top:0;width:320px;height:240px';
    document.body.appendChild(host);
    const renderer = new GraphRenderer(host, view, layout, { onTap() {}, onBackgroundTap() {}, onDrawn() {} });
    renderer.destroy();
    host.remove();
  } catch (e) {
    console.warn('graph warm-up failed', e);
  }
}
