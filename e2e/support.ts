/**
 * What every spec shares: the fixture paths, a `test` that fails on any console error or uncaught
 * page exception, and helpers that give the page files the way a user does (a real drop, the picker).
 */
import { test as base, expect, type Locator, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';
import path from 'node:path';

/** The shared fixture models (../shared/fixtures/models from the repository root). */
export const MODELS = path.resolve(import.meta.dirname, '../../shared/fixtures/models');
export const model = (name: string) => path.join(MODELS, name);
/** The shared fixture photographs (photos/ and coco/). */
export const IMAGES = path.resolve(import.meta.dirname, '../../shared/fixtures/images');

export const test = base.extend<{ pageProblems: string[] }>({
  pageProblems: [
    async ({ page }, use) => {
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(`uncaught exception: ${e.name}: ${e.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
      });
      page.on('crash', () => problems.push('page crashed'));
      await use(problems);
      expect(problems, 'the page logged errors or threw').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/** A file as Playwright gives it to the page. */
export interface PayloadFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

export function fileFromFixture(name: string, as = path.basename(name)): PayloadFile {
  return { name: as, mimeType: 'application/octet-stream', buffer: fs.readFileSync(model(name)) };
}

const MIME: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg' };

/** A fixture photo (`photos/camera.png`, `coco/000000000139.jpg`) as the page gets it from a drop. */
export function imageFromFixture(name: string): PayloadFile {
  return {
    name: path.basename(name),
    mimeType: MIME[path.extname(name).toLowerCase()] ?? 'application/octet-stream',
    buffer: fs.readFileSync(path.join(IMAGES, name)),
  };
}

/** A file on disk (a model or sample a builder wrote) as the page gets it from a drop. */
export function fileAt(file: string): PayloadFile {
  return { name: path.basename(file), mimeType: 'application/octet-stream', buffer: fs.readFileSync(file) };
}

/** Runs a model builder, e2e/builders/<name>.ts, with its arguments (where it writes). */
export function runBuilder(name: string, ...args: string[]): void {
  execFileSync(process.execPath, [
    '--import',
    'tsx',
    path.join(import.meta.dirname, 'builders', `${name}.ts`),
    ...args,
  ]);
}

/** Drops files on a locator with real dragenter/dragover/drop events (Playwright's locator.drop). */
export async function dropFiles(target: Locator, files: PayloadFile | PayloadFile[]): Promise<void> {
  await target.drop({ files });
}

/** Opens the page and waits for the empty state. */
export async function openStudio(page: Page): Promise<void> {
  await page.goto('/');
  await expect(page.getByTestId('drop-zone')).toBeVisible();
}

/** Opens the studio and drops a fixture model on it; resolves when its summary shows. */
export async function openWithModel(page: Page, name: string): Promise<Locator> {
  await openStudio(page);
  await dropFiles(page.getByTestId('drop-zone'), fileFromFixture(name));
  return expectSummaryOf(page, path.basename(name));
}

/** The open model's summary, once it shows `fileName`. */
export async function expectSummaryOf(page: Page, fileName: string): Promise<Locator> {
  const summary = page.getByTestId('model-summary');
  await expect(summary.getByTestId('summary-file-name')).toHaveText(fileName);
  return summary;
}

/** A modifier held while clicking a graph node: Shift picks a start, Alt an end, Control a single node. */
export type PickModifier = 'Shift' | 'Alt' | 'Control' | null;

/**
 * Clicks Evaluate and waits for this run's result. The card's status is watched from before the click, so a run
 * quicker than Playwright's polling (two mnist images on a loaded machine) is still seen to start and end.
 */
export async function evaluateAndWait(page: Page, timeout = 120_000): Promise<void> {
  const card = page.getByTestId('evaluate-card');
  await card.evaluate((el) => {
    const w = window as unknown as { __qsEvalStarted?: boolean };
    w.__qsEvalStarted = false;
    new MutationObserver((records) => {
      if (records.some((r) => r.oldValue === 'running' || el.getAttribute('data-eval-status') === 'running'))
        w.__qsEvalStarted = true;
    }).observe(el, { attributes: true, attributeFilter: ['data-eval-status'], attributeOldValue: true });
  });
  await page.getByTestId('evaluate-button').click();
  await page.waitForFunction(() => (window as unknown as { __qsEvalStarted?: boolean }).__qsEvalStarted === true);
  await expect(card).toHaveAttribute('data-eval-status', 'done', { timeout });
}

/** Finds a node with the graph search (Enter jumps to it), waits until the view rests on it, and clicks its box. */
export async function clickGraphNode(page: Page, id: string, modifier: PickModifier = null): Promise<void> {
  const search = page.getByTestId('graph-search');
  await search.fill(id);
  await search.press('Enter');
  await expect(page.getByTestId('node-inspector')).toHaveAttribute('data-node-id', id);
  const canvas = page.getByTestId('graph-canvas');
  await canvas.scrollIntoViewIfNeeded();
  // The jump centres the node in the canvas; wait until the view is there and at rest.
  await page.waitForFunction((node) => {
    const g = window.__qsGraph;
    const box = document.querySelector('[data-testid="graph-canvas"]')!.getBoundingClientRect();
    const at = g?.position(node);
    return (
      !!g &&
      !!at &&
      g.idle() &&
      g.isDetailed(node) &&
      Math.abs(at.x - (box.left + box.width / 2)) < 2 &&
      Math.abs(at.y - (box.top + box.height / 2)) < 2
    );
  }, id);
  const at = await page.evaluate((node) => window.__qsGraph!.position(node), id);
  if (modifier) await page.keyboard.down(modifier);
  await page.mouse.click(at!.x, at!.y);
  if (modifier) await page.keyboard.up(modifier);
}

/** Drops calibration images, sets the preprocessing and preset, calibrates and quantizes the open model. */
export async function calibrateAndQuantize(
  page: Page,
  images: PayloadFile[],
  preprocess: string,
  preset: string,
): Promise<void> {
  await dropFiles(page.getByTestId('calibration-drop'), images);
  await expect(page.getByTestId('calibration-summary')).toHaveText(`${images.length} images`);
  await page.getByTestId('preprocess-preset').selectOption(preprocess);
  await calibrateThenQuantize(page, preset);
}

/** Drops every .npy sample of a folder as calibration tensors, then calibrates and quantizes the open model. */
export async function calibrateAndQuantizeTensors(page: Page, folder: string, preset: string): Promise<void> {
  const samples = fs.readdirSync(folder).map((f) => fileAt(path.join(folder, f)));
  await dropFiles(page.getByTestId('calibration-drop'), samples);
  await expect(page.getByTestId('calibration-summary')).toHaveText(`${samples.length} .npy samples`);
  await calibrateThenQuantize(page, preset);
}

async function calibrateThenQuantize(page: Page, preset: string): Promise<void> {
  await page.getByTestId('quant-preset').selectOption(preset);
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 90_000 });
  await page.getByTestId('quantize-button').click();
  await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 60_000 });
}

/**
 * A downloaded mnist model runs in onnxruntime-node at `level` (its default, 'all', unless given) and gives the ten
 * finite class scores of a grey image.
 */
export async function mnistRunsInNode(bytes: Uint8Array, level: 'all' | 'basic' = 'all'): Promise<void> {
  const session = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: level });
  const out = await session.run({
    [session.inputNames[0]]: new ort.Tensor('float32', new Float32Array(28 * 28).fill(0.5), [1, 1, 28, 28]),
  });
  const scores = Object.values(out)[0];
  expect(scores.dims).toEqual([1, 10]);
  expect([...(scores.data as Float32Array)].every(Number.isFinite)).toBe(true);
  await session.release();
}
