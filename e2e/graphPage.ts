/**
 * What the graph specs share: a model opened on the page at a given width down to its drawn graph (the pane
 * scrolled into view, the view at rest), and the synthetic exporter-like graph of N nodes (bench/syntheticGraph.ts)
 * written to a test's output folder as a file the page is given.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { dropFiles, expect, expectSummaryOf, openStudio, type PayloadFile } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Two animation frames: what was drawn in the frame under way has been painted by now. */
export function nextPaint(page: Page): Promise<void> {
  return page.evaluate(
    () => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))),
  );
}

/** The view at rest and its last frame painted (cytoscape draws on animation frames): a screenshot now shows the rest. */
export async function paintedAtRest(page: Page): Promise<void> {
  for (;;) {
    await page.waitForFunction(() => window.__qsGraph?.idle() === true);
    await nextPaint(page);
    if (await page.evaluate(() => window.__qsGraph?.idle() === true)) return;
  }
}

export async function openGraph(page: Page, file: PayloadFile, width = 1440): Promise<void> {
  await page.setViewportSize({ width, height: 900 });
  await openStudio(page);
  await dropFiles(page.getByTestId('drop-zone'), file);
  await expectSummaryOf(page, file.name);
  await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 90_000 });
  await page.getByTestId('graph-canvas').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => window.__qsGraph?.idle() === true);
}

/** The synthetic graph of `nodes` nodes, written at `file` (a test's output path). */
export function syntheticGraphFile(file: string, nodes: number): PayloadFile {
  execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'bench/cases/writeSyntheticGraph.ts'), file, String(nodes)],
    { cwd: ROOT },
  );
  return { name: path.basename(file), mimeType: 'application/octet-stream', buffer: fs.readFileSync(file) };
}
