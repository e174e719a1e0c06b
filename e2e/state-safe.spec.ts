/**
 * State that never surprises (issue 29, point 3): another model's data is cleared or offered, never
 * carried silently; picks come back with their model; a reload brings back the calibration, the quantized
 * model and the evaluation and names its model; the welcome note closes; New session asks first; an
 * already-quantized model has its float-only steps disabled with the reason. MNIST and UltraFace.
 */
import fs from 'node:fs';
import type { Page } from '@playwright/test';
import {
  dropFiles,
  expect,
  expectSummaryOf,
  fileFromFixture,
  imageFromFixture,
  openStudio,
  openWithModel,
  test,
} from './support.ts';

const PHOTOS = ['photos/camera.png', 'photos/coffee.png'].map(imageFromFixture);

async function openModelFile(page: Page, name: string): Promise<void> {
  await page.getByTestId('file-input').setInputFiles(fileFromFixture(name));
  await expectSummaryOf(page, name);
}

test("another model's data is cleared (the sample's) or offered (the user's); picks come back with their model", async ({
  page,
}) => {
  await openStudio(page);
  await page.getByTestId('sample-model-button').click();
  await expect(page.getByTestId('calibration-summary')).toHaveText('12 images');
  await expect(page.getByTestId('eval-summary')).toContainText('6');

  // The sample's drawn scenes fit no other model: cleared, and said so.
  await openModelFile(page, 'mnist.onnx');
  const carried = page.getByTestId('carried-data');
  await expect(carried).toHaveAttribute('data-kind', 'cleared');
  await expect(carried).toContainText('12 text scenes');
  await expect(page.getByTestId('calibration-summary')).toHaveCount(0);
  await expect(page.getByTestId('eval-summary')).toHaveText('Drop evaluation images here');
  await carried.getByRole('button', { name: 'OK' }).click();
  await expect(carried).toHaveCount(0);

  // The user's images and a pick on MNIST.
  await dropFiles(page.getByTestId('calibration-drop'), PHOTOS);
  await expect(page.getByTestId('calibration-summary')).toHaveText('2 images');
  const panel = page.getByTestId('exclusion-panel');
  await panel.getByTestId('add-optype-select').selectOption('Relu');
  await panel.getByTestId('add-optype-button').click();
  await expect(panel.getByTestId('exclusion-entry')).toHaveCount(1);
  const pick = await panel.getByTestId('exclusion-entry-name').textContent();

  // Another model: the images are offered, the pick is put aside.
  await openModelFile(page, 'ultraface-rfb-320.onnx');
  await expect(carried).toHaveAttribute('data-kind', 'offer');
  await expect(carried).toContainText('Keep these images for ultraface-rfb-320.onnx?');
  await expect(carried).toContainText('2 calibration samples were added for mnist.onnx');
  await expect(panel.getByTestId('exclusion-entry')).toHaveCount(0);
  await carried.getByTestId('carried-keep').click();
  await expect(carried).toHaveCount(0);
  await expect(page.getByTestId('calibration-summary')).toHaveText('2 images');

  // MNIST again: its pick is back; clearing the offered images clears them.
  await openModelFile(page, 'mnist.onnx');
  await expect(panel.getByTestId('exclusion-entry-name')).toHaveText([pick!]);
  await carried.getByTestId('carried-clear').click();
  await expect(page.getByTestId('calibration-summary')).toHaveCount(0);
});

test('a reload brings back the calibration, the quantized model and the evaluation; the note closes; New session asks first; a quantized model cannot be re-quantized', async ({
  page,
}, info) => {
  test.setTimeout(120_000);
  await openWithModel(page, 'mnist.onnx');
  await dropFiles(page.getByTestId('calibration-drop'), PHOTOS);
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('quantize-button').click();
  await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('evaluate-button').click();
  await expect(page.getByTestId('eval-result')).toBeVisible({ timeout: 60_000 });
  const cosine = await page.getByTestId('eval-mean-cosine').textContent();
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
  const quantizedPath = info.outputPath('mnist.quant.onnx');
  await download.saveAs(quantizedPath);
  await page.evaluate(() => window.__qsSession!.flush()); // the debounced writes, done now

  await page.reload();
  const note = page.getByTestId('session-restored');
  await expect(note).toContainText('mnist.onnx', { timeout: 30_000 });
  await expect(note).toContainText('the calibration');
  await expect(note).toContainText('the quantized model (XINT8)');
  await expect(note).toContainText('the evaluation');
  await expect(page.getByTestId('calibration-result')).toBeVisible();
  await expect(page.getByTestId('quantize-result')).toBeVisible();
  await expect(page.getByTestId('eval-mean-cosine')).toHaveText(cosine!);
  await expect(page.getByTestId('eval-stale')).toHaveCount(0);
  await page.getByTestId('session-restored-close').click();
  await expect(note).toHaveCount(0);

  // New session asks; Cancel keeps everything.
  await page.getByTestId('new-session').click();
  await expect(page.getByTestId('new-session-confirm')).toContainText('closes mnist.onnx');
  await page.getByTestId('new-session-cancel').click();
  await expect(page.getByTestId('model-summary')).toBeVisible();
  await expect(page.getByTestId('eval-mean-cosine')).toHaveText(cosine!);

  // An already-quantized model: the steps that need the float model say so and cannot be clicked.
  await page.getByTestId('file-input').setInputFiles({
    name: 'mnist.quant.onnx',
    mimeType: 'application/octet-stream',
    buffer: fs.readFileSync(quantizedPath),
  });
  await expectSummaryOf(page, 'mnist.quant.onnx');
  await expect(page.getByTestId('calibrate-button')).toBeDisabled();
  await expect(page.getByTestId('float-model-needed')).toContainText('already quantized');
  await expect(page.getByTestId('ladder-button')).toBeDisabled();
  await expect(page.getByTestId('recover-float-needed')).toBeVisible();

  await page.getByTestId('new-session').click();
  await page.getByTestId('new-session-confirm-button').click();
  await expect(page.getByTestId('drop-zone')).toBeVisible();
  await page.reload();
  await expect(page.getByTestId('drop-zone')).toBeVisible();
  await expect(page.getByTestId('session-restored')).toHaveCount(0);
});
