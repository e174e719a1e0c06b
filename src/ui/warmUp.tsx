/**
 * The first screen of a model rendered once while the page is idle, for a tiny model, hidden, and thrown away, so
 * that the user's first model finds it ready. On a fresh page V8 compiles each function lazily on its first call and
 * runs it slowly until it is called often, and the browser sets up the fonts and text of the summary and the graph
 * step on their first layout: measured on MNIST's first drop (Chromium trace and CPU profile, 2 cores), the page's
 * own open, the summary's and the graph step's first render, their first layout and the graph's first picture took
 * most of the time from the file to the graph on screen, and a second model's the same steps about 20–40 ms less.
 *
 * The tiny model (core/onnx/tinyModel.ts) is the one the model worker warms up on; its bytes come from the worker
 * (the page cannot encode), go through the page's open path (ui/remote/openOnPage.ts), and its summary and graph
 * are rendered by the real components (the model's summary view, the graph workspace with its renderer) into an
 * off-screen, invisible host as wide as the page's main column, laid out, and unmounted in the same task. Nothing
 * outside is told: the graph workspace renders as a rehearsal (no "drawn" mark, later steps not released); the
 * mark `warm-up:first-screen` says it ran (e2e open-model checks that it leaves nothing behind).
 */
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { buildGraphIndex } from '../core/onnx/graphIndex.ts';
import { layeredLayout } from '../core/graph/layeredLayout.ts';
import { GraphWorkspace } from './features/graph/GraphScreen.tsx';
import { buildGraphView, layoutInputOf } from './features/graph/viewModel.ts';
import { ModelSummaryView } from './features/model/ModelSummaryView.tsx';
import type { OpenedOnPage } from './remote/openOnPage.ts';

const noop = () => undefined;

/** Renders, lays out and drops the first screen of `tiny`. Never throws: a failure only means no warm-up. */
export function warmFirstScreen(tiny: OpenedOnPage): void {
  const main = document.querySelector('main');
  const host = document.createElement('div');
  host.setAttribute('aria-hidden', 'true');
  host.style.cssText = `position:fixed;left:-20000px;top:0;visibility:hidden;pointer-events:none;width:${main?.clientWidth || 1200}px;height:800px`;
  document.body.appendChild(host);
  const root = createRoot(host);
  try {
    const view = buildGraphView(buildGraphIndex(tiny.structure));
    const layout = layeredLayout(layoutInputOf(view));
    flushSync(() =>
      root.render(
        <>
          <ModelSummaryView summary={tiny.summary} onOpenAnother={noop} onClose={noop} />
          <GraphWorkspace view={view} layout={layout} handle="warm-up" seconds={0} rehearsal />
        </>,
      ),
    );
    host.getBoundingClientRect(); // the layout, done now rather than in the next frame
    performance.mark('warm-up:first-screen');
  } catch (e) {
    console.error('first-screen warm-up failed', e);
  } finally {
    root.unmount();
    host.remove();
  }
}
