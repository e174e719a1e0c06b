/**
 * The ranges the page computes in its workers (onnxruntime-web, the browser's image decoder) equal
 * those of the command line in Node (onnxruntime-node, pngjs) on the same model and images. Only PNG
 * photos: JPEG decoders may differ by a level per pixel (jpeg-js vs libjpeg), PNG decoding is exact.
 * The page's ranges come from its own "Download ranges JSON" button: no test hook in the page. A sequential
 * calibration that the page splits over two workers, round by round, gives the ranges one worker gives (not
 * the command line's: a quantized model's values round differently where web and native onnxruntime differ by
 * a float32 step, and the rounds after spread that).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { downloadedRanges, rangesOff, type Ranges } from './ranges.ts';
import { dropFiles, expect, IMAGES, imageFromFixture, model, openWithModel, test } from './support.ts';

const PNGS = ['astronaut.png', 'chelsea.png', 'coffee.png', 'camera.png'];
const ROOT = path.resolve(import.meta.dirname, '..');

/** `qstudio calibrate` on PNG photos (saved under the given names), in its own process (the CLI runs TypeScript through tsx). */
function nodeRanges(
  outDir: string,
  {
    modelName = 'yolox-nano.onnx',
    files = PNGS.map((n) => [n, n] as const),
    args = ['--config', 'U8S8', '--preprocess', 'yolo'],
  }: { modelName?: string; files?: readonly (readonly [string, string])[]; args?: string[] } = {},
): { method: string; images: number; ranges: Ranges } {
  const calib = path.join(outDir, 'pngs');
  fs.mkdirSync(calib, { recursive: true });
  for (const [photo, as] of files) fs.copyFileSync(path.join(IMAGES, 'photos', photo), path.join(calib, as));
  const out = path.join(outDir, 'node-ranges.json');
  execFileSync(
    process.execPath,
    [path.join(ROOT, 'bin/qstudio.js'), 'calibrate', model(modelName), '--calib', calib, ...args, '-o', out],
    {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  return JSON.parse(fs.readFileSync(out, 'utf8'));
}

test('ranges computed in the page equal those of Node on the same model and PNG photos', async ({ page }, info) => {
  test.setTimeout(90_000);
  const node = nodeRanges(info.outputPath());

  await openWithModel(page, 'yolox-nano.onnx');
  await dropFiles(
    page.getByTestId('calibration-drop'),
    PNGS.map((n) => imageFromFixture(`photos/${n}`)),
  );
  await expect(page.getByTestId('calibration-summary')).toHaveText('4 images');
  await page.getByTestId('preprocess-preset').selectOption('yolo');
  await page.getByTestId('quant-preset').selectOption('U8S8');
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 60_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-ranges').click()]);
  expect(download.suggestedFilename()).toBe('yolox-nano.ranges.json');
  const saved = info.outputPath('page-ranges.json');
  await download.saveAs(saved);
  const web = JSON.parse(fs.readFileSync(saved, 'utf8')) as { method: string; samples: number; ranges: Ranges };

  expect(web.method).toBe(node.method);
  expect(web.samples).toBe(node.images);
  expect(Object.keys(web.ranges).sort()).toEqual(Object.keys(node.ranges).sort());
  expect(
    rangesOff(web.ranges, node.ranges, 1e-4).off,
    'tensors whose ranges differ by more than 1e-4 relative',
  ).toEqual([]);
});

test('Sequential split over two workers, round by round, gives the ranges one worker gives', async ({
  page,
  browser,
}, info) => {
  test.setTimeout(300_000);
  // Eight images (the page splits from eight on): the five PNG photos and three of them again under other names.
  const photos = ['astronaut.png', 'camera.png', 'chelsea.png', 'coffee.png', 'face.png'];
  const files = [...photos, ...photos.slice(0, 3).map((n) => `again-${n}`)];
  const calibrate = async (p: Page, saved: string) => {
    await openWithModel(p, 'ultraface-rfb-320.onnx');
    await dropFiles(
      p.getByTestId('calibration-drop'),
      files.map((as) => ({ ...imageFromFixture(`photos/${as.replace(/^again-/, '')}`), name: as })),
    );
    await expect(p.getByTestId('calibration-summary')).toHaveText('8 images');
    await p.getByTestId('preprocess-preset').selectOption('ultraface');
    await p.getByTestId('quant-preset').selectOption('A8W8');
    await p.getByTestId('calibration-method').selectOption('Sequential');
    await p.getByTestId('calibrate-button').click();
    const result = p.getByTestId('calibration-result');
    await expect(result).toContainText('Sequential', { timeout: 200_000 });
    return { text: await result.textContent(), ...(await downloadedRanges(p, saved)) };
  };
  // The page splits calibration by the cores it is told of: two workers of one thread here, one worker of one thread where it sees one core.
  const split = await calibrate(page, info.outputPath('two-workers.json'));
  expect(split.text).toContain('2 workers');
  const context = await browser.newContext({ baseURL: info.project.use.baseURL });
  try {
    const single = await context.newPage();
    await single.addInitScript(() =>
      Object.defineProperty(Navigator.prototype, 'hardwareConcurrency', { get: () => 1 }),
    );
    const one = await calibrate(single, info.outputPath('one-worker.json'));
    expect(one.text).not.toContain('workers');
    expect(split.method).toBe('Sequential');
    expect(split.samples).toBe(8);
    // Every worker ran each round with the same ranges: the same numbers as one worker, tensor by tensor.
    expect(Object.keys(split.ranges).length).toBeGreaterThan(100);
    const { off, largest } = rangesOff(split.ranges, one.ranges, 0);
    info.annotations.push({
      type: 'largest relative range difference, two workers vs one',
      description: String(largest),
    });
    expect(off, 'tensors whose ranges differ').toEqual([]);
  } finally {
    await context.close();
  }
});

test("the calibration method field: A8W8's default is the held-in choice, another method calibrates with it, a preset change goes back to the preset's", async ({
  page,
}, info) => {
  test.setTimeout(90_000);
  await openWithModel(page, 'yolox-nano.onnx');
  await dropFiles(
    page.getByTestId('calibration-drop'),
    PNGS.slice(0, 2).map((n) => imageFromFixture(`photos/${n}`)),
  );
  await page.getByTestId('preprocess-preset').selectOption('yolo');
  await page.getByTestId('quant-preset').selectOption('A8W8');
  const method = page.getByTestId('calibration-method');
  await expect(method).toHaveValue('');
  await expect(method.locator('option').first()).toHaveText('Chosen on held-in samples (default)');
  await expect(method.locator('option').nth(1)).toHaveText('MinMax (the preset’s own)');
  await method.selectOption('Entropy');
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toContainText('Entropy', { timeout: 60_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-ranges').click()]);
  const saved = info.outputPath('entropy-ranges.json');
  await download.saveAs(saved);
  expect(JSON.parse(fs.readFileSync(saved, 'utf8')).method).toBe('Entropy');
  await page.getByTestId('quant-preset').selectOption('XINT8');
  await expect(method).toHaveValue('');
  await expect(method.locator('option')).toHaveText(['The preset’s (MinMSE)', 'Chosen on held-in samples', 'MinMax']);
});
