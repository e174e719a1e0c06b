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
  execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench/cases/writeSyntheticGraph.ts'), file, String(nodes)], { cwd: ROOT });
  return { name: path.basename(file), mimeType: 'application/octet-stream', buffer: fs.readFileSync(file) };
}
