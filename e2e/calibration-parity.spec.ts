/**
 * The ranges the page computes in its workers (onnxruntime-web, the browser's image decoder) equal
 * those of the command line in Node (onnxruntime-node, pngjs) on the same model and images. Only PNG
 * photos: JPEG decoders may differ by a level per pixel (jpeg-js vs libjpeg), PNG decoding is exact.
 * The page's ranges come from its own "Download ranges JSON" button: no test hook in the page.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dropFiles, expect, IMAGES, imageFromFixture, model, openWithModel, test } from './support.ts';

const PNGS = ['astronaut.png', 'chelsea.png', 'coffee.png', 'camera.png'];
const ROOT = path.resolve(import.meta.dirname, '..');

type Ranges = Record<string, [number, number]>;

/** `qstudio calibrate` on the PNGs, in its own process (the CLI runs TypeScript through tsx). */
function nodeRanges(outDir: string): { method: string; images: number; ranges: Ranges } {
  const calib = path.join(outDir, 'pngs');
  fs.mkdirSync(calib, { recursive: true });
  for (const name of PNGS) fs.copyFileSync(path.join(IMAGES, 'photos', name), path.join(calib, name));
  const out = path.join(outDir, 'node-ranges.json');
  execFileSync(process.execPath, [path.join(ROOT, 'bin/qstudio.js'), 'calibrate', model('yolox-nano.onnx'), '--calib', calib, '--config', 'U8S8', '--preprocess', 'yolo', '-o', out], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return JSON.parse(fs.readFileSync(out, 'utf8'));
}

test('ranges computed in the page equal those of Node on the same model and PNG photos', async ({ page }, info) => {
  test.setTimeout(90_000);
  const node = nodeRanges(info.outputPath());

  await openWithModel(page, 'yolox-nano.onnx');
  await dropFiles(page.getByTestId('calibration-drop'), PNGS.map((n) => imageFromFixture(`photos/${n}`)));
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
  const off: string[] = [];
  for (const [tensor, [min, max]] of Object.entries(node.ranges)) {
    const [wmin, wmax] = web.ranges[tensor];
    const scale = Math.max(Math.abs(min), Math.abs(max), 1e-6);
    if (Math.abs(wmin - min) > 1e-4 * scale || Math.abs(wmax - max) > 1e-4 * scale) off.push(`${tensor}: page [${wmin}, ${wmax}] vs node [${min}, ${max}]`);
  }
  expect(off, 'tensors whose ranges differ by more than 1e-4 relative').toEqual([]);
});

test('the calibration method field: the preset\'s by default, another method calibrates with it, a preset change goes back to the preset\'s', async ({ page }, info) => {
  test.setTimeout(90_000);
  await openWithModel(page, 'yolox-nano.onnx');
  await dropFiles(page.getByTestId('calibration-drop'), PNGS.slice(0, 2).map((n) => imageFromFixture(`photos/${n}`)));
  await page.getByTestId('preprocess-preset').selectOption('yolo');
  await page.getByTestId('quant-preset').selectOption('A8W8');
  const method = page.getByTestId('calibration-method');
  await expect(method).toHaveValue('');
  await expect(method.locator('option').first()).toHaveText('The preset’s (MinMax)');
  await method.selectOption('Entropy');
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toContainText('Entropy', { timeout: 60_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-ranges').click()]);
  const saved = info.outputPath('entropy-ranges.json');
  await download.saveAs(saved);
  expect(JSON.parse(fs.readFileSync(saved, 'utf8')).method).toBe('Entropy');
  await page.getByTestId('quant-preset').selectOption('XINT8');
  await expect(method).toHaveValue('');
  await expect(method.locator('option')).toHaveText(['The preset’s (MinMSE)', 'MinMax']);
});
