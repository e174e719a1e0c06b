/**
 * The studio page in Debian's Chromium, for the cases that measure it: launch the browser with the flags every
 * case uses, open the page served by `vite preview` (bench/previewServer.ts), and the first steps that most
 * flows share (drop a fixture model, drop calibration images, pick the preprocessing). It measures nothing
 * itself and must not wait on fixed sleeps; the cases time their own steps.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from '@playwright/test';

/** The shared fixtures folder (models/, images/coco/). */
export const FIXTURES = path.resolve(import.meta.dirname, '../../../shared/fixtures');

/** The COCO fixture images' file names, in order: the suites calibrate on 1–16 and judge on 17–24. */
export const cocoNames = (): string[] => fs.readdirSync(path.join(FIXTURES, 'images/coco')).sort();

/** A COCO fixture image as Playwright drops it. */
export const cocoFile = (name: string) => ({
  name,
  mimeType: 'image/jpeg',
  buffer: fs.readFileSync(path.join(FIXTURES, 'images/coco', name)),
});

/**
 * Debian's Chromium with the flags this machine needs (no sandbox as root, no background connections), and `extra`
 * ones (`--enable-unsafe-webgpu`: WebGPU's software adapter).
 */
export function launchChromium(extra: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      ...extra,
    ],
  });
}

/** Launches Chromium, opens `url` in one page and calls `fn` with it; the browser is closed however `fn` ends. */
export async function withStudioPage<T>(
  url: string,
  fn: (page: Page) => Promise<T>,
  viewport?: { width: number; height: number },
  browserArgs: readonly string[] = [],
): Promise<T> {
  const browser = await launchChromium(browserArgs);
  try {
    const page = await browser.newPage(viewport ? { viewport } : undefined);
    await page.goto(url);
    return await fn(page);
  } finally {
    await browser.close();
  }
}

/** Drops a model file on the page's drop zone (`name` is the file name the page sees). */
export async function dropModel(
  page: Page,
  name: string,
  buffer: Buffer = fs.readFileSync(path.join(FIXTURES, 'models', name)),
): Promise<void> {
  await page.getByTestId('drop-zone').drop({ files: { name, mimeType: 'application/octet-stream', buffer } });
}

/**
 * Drops fixture model `model`, then the COCO images `images` as calibration data, and picks the preprocessing
 * preset; YuNet's symbolic input is set to 1 × 320 × 320, as every suite runs it.
 */
export async function openForCalibration(
  page: Page,
  model: string,
  images: string[],
  preprocess: string,
): Promise<void> {
  await dropModel(page, model);
  await page.getByTestId('calibration-drop').waitFor();
  await page.getByTestId('calibration-drop').drop({ files: images.map(cocoFile) });
  await page.getByTestId('preprocess-preset').selectOption(preprocess);
  if (model.startsWith('yunet')) {
    for (const [dim, value] of [
      ['batch', '1'],
      ['height', '320'],
      ['width', '320'],
    ]) {
      const field = page.getByTestId(`spec-dim-${dim}`);
      if (await field.count()) await field.fill(value);
    }
  }
}

/**
 * Mean and 95th percentile of the frame intervals over 60 animation frames while `step` (page source: a statement
 * using `n`, the frame number) runs once a frame, e.g. one pan step. Kept as page source text: tsx would wrap named
 * functions in a helper the page does not have.
 */
export function frameTimes(page: Page, step: string): Promise<{ mean: number; p95: number }> {
  return page.evaluate(`new Promise((resolve) => {
  const times = [];
  let last = performance.now();
  let n = 0;
  const tick = (now) => {
    if (n > 0) times.push(now - last);
    last = now;
    if (n++ >= 60) {
      times.sort((a, b) => a - b);
      resolve({ mean: times.reduce((a, b) => a + b, 0) / times.length, p95: times[Math.floor(times.length * 0.95)] });
      return;
    }
    ${step};
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})`) as Promise<{ mean: number; p95: number }>;
}
