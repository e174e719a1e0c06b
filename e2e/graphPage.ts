/**
 * What the graph specs share: a model opened on the page at a given width down to its drawn graph (the pane
 * scrolled into view, the view at rest), a box selected by a click on the canvas, and the models the specs write to a
 * test's output folder as files the page is given: the synthetic exporter-like graph of N nodes
 * (bench/syntheticGraph.ts) and the control-flow model (e2e/builders/controlFlowModel.ts).
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

/** The control-flow model (If with a nested If, Loop: core/quantize/testModels.ts), written at `file`. */
export function controlFlowFile(file: string): PayloadFile {
  execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'e2e/builders/controlFlowModel.ts'), file], {
    cwd: ROOT,
  });
  return { name: path.basename(file), mimeType: 'application/octet-stream', buffer: fs.readFileSync(file) };
}

/** Selects a node by clicking its box, through the canvas's own click handler. */
export async function selectBox(page: Page, id: string): Promise<void> {
  await page.getByTestId('graph-workspace').evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await page.waitForFunction(() => window.__qsGraph?.idle() === true);
  await expect.poll(() => page.evaluate((n) => window.__qsGraph!.position(n) !== null, id)).toBe(true);
  // Opening or leaving a subgraph changes what sits above the canvas (the canvas moves some 180 px at 900 px wide):
  // read the box's place only once the canvas has kept its place on the page for two painted frames.
  await page.waitForFunction(
    () =>
      new Promise<boolean>((done) => {
        const top = () => document.querySelector('[data-testid=graph-canvas]')!.getBoundingClientRect().top;
        const first = top();
        requestAnimationFrame(() => requestAnimationFrame(() => done(top() === first)));
      }),
  );
  const at = await page.evaluate((n) => window.__qsGraph!.position(n)!, id);
  await page.mouse.click(at.x, at.y);
  await expect(page.getByTestId('node-inspector')).toHaveAttribute('data-node-id', id);
}

/** A sample of the control-flow model's input: a float32 .npy of shape [1, 4] (format 1.0), values in −1.5 … 1.5 varying with `seed`. */
export function controlFlowSample(name: string, seed: number): PayloadFile {
  let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4), }";
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const data = Float32Array.from({ length: 4 }, (_, i) => 1.5 * Math.sin(seed * 2.3 + i * 1.7));
  const buffer = Buffer.concat([
    Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]),
    Buffer.from(header),
    Buffer.from(data.buffer),
  ]);
  return { name, mimeType: 'application/octet-stream', buffer };
}

/** Calibrates the open control-flow model on eight of its samples and quantizes it with A8W8, inside its bodies too. */
export async function quantizeControlFlowInsideBodies(page: Page): Promise<void> {
  await dropFiles(
    page.getByTestId('calibration-drop'),
    Array.from({ length: 8 }, (_, k) => controlFlowSample(`c${k}.npy`, k)),
  );
  await page.getByTestId('quant-preset').selectOption('A8W8');
  await page.getByTestId('enable-subgraph').check();
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('quantize-button').click();
  await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 30_000 });
}
