/**
 * The split view in Debian's Chromium: the built page gets the float model dropped on it (one pane: drop → drawn,
 * the graph step's own marks), then the quantized model alone (one pane again), then both dropped together on the
 * comparison target (drop → both panes drawn: both files decoded, their Q/DQ folded, the node mapping made and both
 * views laid out in the comparison worker, then two first pictures on the page). Then the frame time of a pan on one pane while the other follows, against a pan of one pane.
 * Usage: compareBrowser.ts <url> <float model> <quantized model> <label>
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { dropModel, frameTimes, withStudioPage } from './browser.ts';

const [url, floatPath, quantPath, label] = process.argv.slice(2);

/** Frame times while one pane is panned a step a frame: the graph step's pane alone, or the split view's first (the other follows). */
const frames = (page: Page, which: 'one' | 'split') =>
  frameTimes(page, `const dx = n % 40 < 20 ? 12 : -12; ${which === 'one' ? 'window.__qsGraph.panBy(dx, 5)' : "window.__qsCompare.panBy('a', dx, 5)"}`);
const file = (p: string) => ({ name: path.basename(p), mimeType: 'application/octet-stream', buffer: fs.readFileSync(p) });
const round = (v: number, d = 2) => +v.toFixed(d);

async function onePane(page: Page, modelPath: string): Promise<number> {
  const start = Date.now();
  // The first on the empty page's drop zone; later ones anywhere on the page (the window takes them), as a user does.
  const zone = page.getByTestId('drop-zone');
  if (await zone.count()) await dropModel(page, path.basename(modelPath), fs.readFileSync(modelPath));
  else await page.getByTestId('model-summary').drop({ files: file(modelPath) });
  await page.getByTestId('summary-file-name').filter({ hasText: path.basename(modelPath) }).waitFor({ timeout: 300_000 });
  await page.locator('[data-graph-drawn="true"]').waitFor({ timeout: 300_000 });
  return (Date.now() - start) / 1000;
}

await withStudioPage(url, async (page) => {
  await page.waitForTimeout(3000); // the idle page starts its workers and fetches the later steps, as before a user's drop
  const quantSeconds = await onePane(page, quantPath);
  const floatSeconds = await onePane(page, floatPath);
  const boxes = await page.evaluate(() => window.__qsGraph!.boxes);
  await page.getByTestId('graph-canvas').scrollIntoViewIfNeeded();
  const onePan = await frames(page, 'one');

  // The page's longest main-thread task while the split view opens (from drop to both drawn): how long it froze.
  await page.evaluate(`window.__longTasks = []; new PerformanceObserver((l) => window.__longTasks.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask' })`);
  const dropAt = (await page.evaluate('performance.now()')) as number;
  const start = Date.now();
  await page.getByTestId('compare-drop').drop({ files: [file(floatPath), file(quantPath)] });
  await page.locator('[data-compare-drawn="true"]').waitFor({ timeout: 600_000 });
  const splitSeconds = (Date.now() - start) / 1000;
  const marks = (await page.evaluate(`Object.fromEntries(performance.getEntriesByType('mark').filter((m) => m.name.startsWith('compare:')).map((m) => [m.name, m.startTime]))`)) as Record<string, number>;
  const worker = (await page.evaluate(`performance.getEntriesByName('compare:received').at(-1)?.detail ?? null`)) as { read: number; map: number; layout: number } | null;
  if (process.env.QS_BENCH_SHOT) {
    await page.screenshot({ path: process.env.QS_BENCH_SHOT });
    console.error(await page.evaluate(() => document.querySelector('[data-testid="compare-view"]')?.outerHTML.slice(0, 1500) ?? 'no compare view'));
  }
  const longTasks = (await page.evaluate('window.__longTasks')) as number[];
  const related = await page.getByTestId('compare-view').getAttribute('data-related');
  await page.getByTestId('compare-canvas-a').scrollIntoViewIfNeeded();
  const splitPan = await frames(page, 'split');
  console.log(JSON.stringify({
    model: label,
    boxes,
    onePaneFloatSeconds: round(floatSeconds),
    onePaneQuantizedSeconds: round(quantSeconds),
    splitSeconds: round(splitSeconds),
    splitOverOnePane: round(splitSeconds / Math.max(floatSeconds, quantSeconds)),
    workerReadSeconds: round(worker?.read ?? NaN),
    workerFoldMapSeconds: round(worker?.map ?? NaN),
    workerLayoutSeconds: round(worker?.layout ?? NaN),
    dropToReceivedSeconds: round(((marks['compare:received'] ?? NaN) - dropAt) / 1000),
    drawSeconds: round(((marks['compare:drawn'] ?? NaN) - (marks['compare:received'] ?? NaN)) / 1000),
    longestTaskMs: Math.round(Math.max(0, ...longTasks)),
    related,
    onePanMs: round(onePan.mean, 1),
    onePanP95Ms: round(onePan.p95, 1),
    splitPanMs: round(splitPan.mean, 1),
    splitPanP95Ms: round(splitPan.p95, 1),
  }));
}, { width: 1440, height: 900 });
