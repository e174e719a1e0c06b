/**
 * The graph view in Debian's Chromium: the built page (served by `vite preview` at the URL given) gets
 * a model dropped on it, and we time the drop to a fully drawn graph (the view's `data-graph-drawn`),
 * with the time the model summary shows (the model step: reading and decoding in the model worker), the page's own phase marks (structure from the model worker, view model, layout in its worker,
 * first picture). Then the frame time of a pan and of a zoom, at "fit" (whole graph in view, the
 * overview canvas draws it) and zoomed in on a node (cytoscape draws the boxes near the viewport):
 * 60 animation frames each, one viewport step per frame, time between frames measured in the page.
 * Usage: graphBrowser.ts <url> <model path> <label>
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { dropModel, frameTimes, withStudioPage } from './browser.ts';

const [url, modelPath, label] = process.argv.slice(2);

/** Frame times while one pan or zoom step is made per frame. */
function frames(page: Page, kind: 'pan' | 'zoom'): Promise<{ mean: number; p95: number }> {
  return frameTimes(
    page,
    kind === 'pan'
      ? 'window.__qsGraph.panBy(n % 40 < 20 ? 12 : -12, 5)'
      : 'window.__qsGraph.zoomBy(n % 40 < 20 ? 1.03 : 1 / 1.03)',
  );
}

await withStudioPage(
  url,
  async (page) => {
    const buffer = fs.readFileSync(modelPath);
    // A user drops a model a few seconds after the page opened: by then the idle page has started the model
    // worker and fetched the later steps' code (src/main.tsx). Give it that time, as a user would.
    await page.waitForTimeout(3000);
    const dropAt = (await page.evaluate('performance.now()')) as number;
    const start = Date.now();
    await dropModel(page, path.basename(modelPath), buffer);
    await page.getByTestId('summary-file-name').waitFor({ timeout: 300_000 });
    const dropToSummary = (Date.now() - start) / 1000;
    await page.locator('[data-graph-drawn="true"]').waitFor({ timeout: 300_000 });
    const dropToDrawn = (Date.now() - start) / 1000;
    const marks = (await page.evaluate(
      `Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('graph:')).map((m) => [m.name, m.startTime]))`,
    )) as Record<string, number>;
    const boxes = await page.evaluate(() => window.__qsGraph!.boxes);
    await page.getByTestId('graph-canvas').scrollIntoViewIfNeeded();
    // The graph opens at 100 % when it does not fit readable there: fit it for the "whole graph in view" frames.
    await page.evaluate(() => window.__qsGraph!.fit());
    await page.waitForFunction(() => window.__qsGraph!.idle(), undefined, { timeout: 60_000 });
    const fitPan = await frames(page, 'pan');
    const fitZoom = await frames(page, 'zoom');
    // Zoomed in: jump to the first Concat with the search (what a user does).
    const search = page.getByTestId('graph-search');
    await search.fill('Concat');
    await search.press('Enter');
    await page.waitForFunction(() => window.__qsGraph!.idle() && window.__qsGraph!.detailedBoxes() > 0, undefined, {
      timeout: 60_000,
    });
    const detailed = await page.evaluate(() => window.__qsGraph!.detailedBoxes());
    const inPan = await frames(page, 'pan');
    const inZoom = await frames(page, 'zoom');
    const round = (v: number) => +v.toFixed(1);
    console.log(
      JSON.stringify({
        model: label,
        boxes,
        dropToDrawnSeconds: +dropToDrawn.toFixed(2),
        summarySeconds: +dropToSummary.toFixed(2),
        openSeconds: +((marks['graph:start'] - dropAt) / 1000).toFixed(2),
        graphSeconds: +((marks['graph:drawn'] - marks['graph:start']) / 1000).toFixed(2),
        // A large graph's view and layout come together from the model worker (useGraphView.ts): 'view model' is
        // then the wait for both after the page's index, and 'layout' 0.
        layoutSeconds: +((marks['graph:layout'] - marks['graph:view']) / 1000).toFixed(2),
        viewModelSeconds: +((marks['graph:view'] - marks['graph:structure']) / 1000).toFixed(2),
        firstPictureSeconds: +((marks['graph:drawn'] - marks['graph:layout']) / 1000).toFixed(2),
        fitPanMs: round(fitPan.mean),
        fitPanP95Ms: round(fitPan.p95),
        fitZoomMs: round(fitZoom.mean),
        detailedBoxes: detailed,
        zoomedPanMs: round(inPan.mean),
        zoomedPanP95Ms: round(inPan.p95),
        zoomedZoomMs: round(inZoom.mean),
      }),
    );
  },
  { width: 1400, height: 1000 },
);
