/**
 * The split view in Debian's Chromium: the built page gets the quantized model dropped on it (one pane: drop → drawn,
 * the graph step's own marks), then the float model alone (one pane again), then both dropped together on the
 * comparison target (drop → both panes drawn: both files decoded, their Q/DQ folded, the node mapping made and both
 * views laid out in the comparison worker, then two first pictures on the page). Then the frame time of a pan on one
 * pane while the other follows, against a pan of one pane.
 * Every time is the page's own clock from its drop event (Playwright's handing over of the files is not counted)
 * to the drawn mark.
 * Usage: compareBrowser.ts <url> <float model> <quantized model> <label>
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { frameTimes, withStudioPage } from './browser.ts';

const [url, floatPath, quantPath, label] = process.argv.slice(2);

/** Frame times while one pane is panned a step a frame: the graph step's pane alone, or the split view's first (the other follows). */
const frames = (page: Page, which: 'one' | 'split') =>
  frameTimes(
    page,
    `const dx = n % 40 < 20 ? 12 : -12; ${which === 'one' ? 'window.__qsGraph.panBy(dx, 5)' : "window.__qsCompare.panBy('a', dx, 5)"}`,
  );
const file = (p: string) => ({
  name: path.basename(p),
  mimeType: 'application/octet-stream',
  buffer: fs.readFileSync(p),
});
const round = (v: number, d = 2) => +v.toFixed(d);

/** The page's clock at the last drop (its `drop` event, after Playwright has handed the files over). */
const DROP_CLOCK = `document.addEventListener('drop', () => { window.__qsDropAt = performance.now(); }, { capture: true })`;
const sinceDrop = (page: Page, mark: string) =>
  page.evaluate(
    `(performance.getEntriesByName('${mark}').at(-1).startTime - window.__qsDropAt) / 1000`,
  ) as Promise<number>;

/** The page's longest main-thread task from the last drop to `until` (page clock), ms: how long the page froze. */
const longestTaskSinceDrop = async (page: Page, until: number) => {
  const dropAt = (await page.evaluate('window.__qsDropAt')) as number;
  const tasks = (await page.evaluate('window.__longTasks')) as [number, number][];
  // Only tasks that start after the drop event count: Playwright builds the dropped files in the page first.
  return Math.round(Math.max(0, ...tasks.filter(([start]) => start >= dropAt && start <= until).map(([, d]) => d)));
};

/** One model dropped, to its graph drawn: in the page, from the drop event to the graph:drawn mark. */
async function onePane(page: Page, modelPath: string): Promise<number> {
  // The first on the empty page's drop zone; later ones anywhere on the page (the window takes them), as a user does.
  const zone = page.getByTestId('drop-zone');
  const target = (await zone.count()) ? zone : page.getByTestId('model-summary');
  await target.drop({ files: file(modelPath) }, { timeout: 300_000 });
  await page
    .getByTestId('summary-file-name')
    .filter({ hasText: path.basename(modelPath) })
    .waitFor({ timeout: 300_000 });
  // Polled from here: the page's content security policy refuses waitForFunction's string predicates.
  const deadline = Date.now() + 300_000;
  while (
    !(await page.evaluate(`performance.getEntriesByName('graph:drawn').some((m) => m.startTime > window.__qsDropAt)`))
  ) {
    if (Date.now() > deadline) throw new Error(`${path.basename(modelPath)} was not drawn within 300 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return sinceDrop(page, 'graph:drawn');
}

await withStudioPage(
  url,
  async (page) => {
    await page.evaluate(DROP_CLOCK);
    await page.waitForTimeout(3000); // the idle page starts its workers and fetches the later steps, as before a user's drop
    await page.evaluate(
      `window.__longTasks = []; new PerformanceObserver((l) => window.__longTasks.push(...l.getEntries().map((e) => [e.startTime, e.duration]))).observe({ type: 'longtask' })`,
    );
    const quantSeconds = await onePane(page, quantPath);
    const quantLongestTaskMs = await longestTaskSinceDrop(
      page,
      (await page.evaluate(`performance.getEntriesByName('graph:drawn').at(-1).startTime`)) as number,
    );
    const floatSeconds = await onePane(page, floatPath);
    const boxes = await page.evaluate(() => window.__qsGraph!.boxes);
    await page.getByTestId('graph-canvas').scrollIntoViewIfNeeded();
    const onePan = await frames(page, 'one');

    // The page's longest main-thread task while the split view opens (from drop to both drawn): how long it froze.
    await page.getByTestId('compare-drop').drop({ files: [file(floatPath), file(quantPath)] }, { timeout: 300_000 });
    await page.locator('[data-compare-drawn="true"]').waitFor({ timeout: 600_000 });
    const splitSeconds = await sinceDrop(page, 'compare:drawn');
    const dropAt = (await page.evaluate('window.__qsDropAt')) as number;
    const marks = (await page.evaluate(
      `Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('compare:')).map((m) => [m.name, m.startTime]))`,
    )) as Record<string, number>;
    const worker = (await page.evaluate(`performance.getEntriesByName('compare:received').at(-1)?.detail ?? null`)) as {
      read: number;
      views: number;
      map: number;
    } | null;
    if (process.env.QS_BENCH_SHOT) {
      await page.screenshot({ path: process.env.QS_BENCH_SHOT });
      console.error(
        await page.evaluate(
          () => document.querySelector('[data-testid="compare-view"]')?.outerHTML.slice(0, 1500) ?? 'no compare view',
        ),
      );
    }
    const longestTaskMs = await longestTaskSinceDrop(page, marks['compare:drawn'] ?? Infinity);
    const related = await page.getByTestId('compare-view').getAttribute('data-related');
    await page.getByTestId('compare-canvas-a').scrollIntoViewIfNeeded();
    const splitPan = await frames(page, 'split');
    console.log(
      JSON.stringify({
        model: label,
        boxes,
        onePaneFloatSeconds: round(floatSeconds),
        onePaneQuantizedSeconds: round(quantSeconds),
        splitSeconds: round(splitSeconds),
        splitOverOnePane: round(splitSeconds / Math.max(floatSeconds, quantSeconds)),
        splitOverFloatPane: round(splitSeconds / floatSeconds),
        workerReadSeconds: round(worker?.read ?? NaN),
        workerViewsSeconds: round(worker?.views ?? NaN),
        workerMapSeconds: round(worker?.map ?? NaN),
        dropToReceivedSeconds: round(((marks['compare:received'] ?? NaN) - dropAt) / 1000),
        drawSeconds: round(((marks['compare:drawn'] ?? NaN) - (marks['compare:received'] ?? NaN)) / 1000),
        longestTaskMs,
        onePaneQuantizedLongestTaskMs: quantLongestTaskMs,
        related,
        onePanMs: round(onePan.mean, 1),
        onePanP95Ms: round(onePan.p95, 1),
        splitPanMs: round(splitPan.mean, 1),
        splitPanP95Ms: round(splitPan.p95, 1),
      }),
    );
  },
  { width: 1440, height: 900 },
);
