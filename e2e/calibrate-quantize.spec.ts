/**
 * The calibration and quantization flow in a real Chromium: images dropped on the page, decoded and
 * run through onnxruntime-web in workers, ranges in, a QDQ model out, and that model loaded by
 * onnxruntime-node here. Also what a user meets on the way: a corrupt image, a cancel, a model with
 * custom ops, no data.
 */
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';
import { dropFiles, expect, imageFromFixture, openWithModel, test } from './support.ts';

/** Eight photos of varied content; camera.png is grayscale (the decoder expands it to RGB). */
const EIGHT_PHOTOS = [
  'astronaut.png',
  'camera.png',
  'chelsea.png',
  'coffee.png',
  'yolox_dog.jpg',
  'china.jpg',
  'fruits.jpg',
  'rocket.jpg',
];
const COCO = fs.readdirSync(`${import.meta.dirname}/../../shared/fixtures/images/coco`).sort();

test.describe('calibrate and quantize', () => {
  test('yolox-nano: eight photos, YOLO preprocessing, XINT8; the downloaded model runs in onnxruntime-node', async ({
    page,
  }, info) => {
    test.setTimeout(120_000);
    await openWithModel(page, 'yolox-nano.onnx');
    await dropFiles(
      page.getByTestId('calibration-drop'),
      EIGHT_PHOTOS.map((n) => imageFromFixture(`photos/${n}`)),
    );
    await expect(page.getByTestId('calibration-summary')).toHaveText('8 images');
    await expect(page.getByTestId('calibration-thumbnails').locator('img')).toHaveCount(8);

    await page.getByTestId('preprocess-preset').selectOption('yolo');
    await expect(page.getByTestId('spec-channel-order')).toHaveValue('BGR');
    await expect(page.getByTestId('preview-processed')).toBeVisible();
    await page.getByTestId('quant-preset').selectOption('XINT8');
    await expect(page.getByTestId('quant-preset-summary')).toContainText('power-of-two');

    await page.getByTestId('calibrate-button').click();
    const progress = page.getByTestId('calibration-progress');
    await expect(progress).toBeVisible();
    const result = page.getByTestId('calibration-result');
    await expect(result).toBeVisible({ timeout: 90_000 });
    await expect(progress).toHaveCount(0);
    await expect(page.getByTestId('calibration-used')).toHaveText('8');
    await expect(result).toContainText('PowerOfTwoMinMSE');
    await expect(page.getByTestId('calibration-skipped')).toHaveCount(0);

    await page.getByTestId('quantize-button').click();
    const report = page.getByTestId('quantize-result');
    await expect(report).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('report-opset')).toContainText('→');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
    expect(download.suggestedFilename()).toBe('yolox-nano.quant.onnx');
    const saved = info.outputPath('yolox-nano.quant.onnx');
    await download.saveAs(saved);

    const session = await ort.InferenceSession.create(saved, { graphOptimizationLevel: 'basic' });
    try {
      const ops = fs.readFileSync(saved).includes(Buffer.from('QuantizeLinear'));
      expect(ops, 'the downloaded model has Q/DQ nodes').toBe(true);
      const out = await session.run({
        images: new ort.Tensor('float32', new Float32Array(3 * 416 * 416), [1, 3, 416, 416]),
      });
      expect(out.output.dims).toEqual([1, 3549, 85]);
      expect((out.output.data as Float32Array).every(Number.isFinite)).toBe(true);
    } finally {
      await session.release();
    }
  });

  test('a corrupt image is named as it is added; the others calibrate', async ({ page }) => {
    await openWithModel(page, 'ultraface-rfb-320.onnx');
    const corrupt = {
      name: 'x.jpg',
      mimeType: 'image/jpeg',
      buffer: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)),
    };
    await dropFiles(page.getByTestId('calibration-drop'), [
      imageFromFixture('photos/face.png'),
      corrupt,
      imageFromFixture('photos/grace_hopper.jpg'),
    ]);
    // Named at once, before any calibration: the file is not taken.
    await expect(page.getByTestId('calibration-summary')).toHaveText('2 images');
    const rejected = page.getByTestId('calibration-rejected').getByTestId('rejected-file');
    await expect(rejected).toHaveCount(1);
    await expect(rejected).toContainText('x.jpg');
    await expect(rejected).toContainText('not a readable image');
    await page.getByTestId('quant-preset').selectOption('U8S8');
    await page.getByTestId('calibrate-button').click();
    await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('calibration-used')).toHaveText('2');
    await expect(page.getByTestId('skipped-file')).toHaveCount(0);
    await expect(page.getByTestId('quantize-button')).toBeEnabled();
  });

  test('cancel during a run leaves the page usable, and a second run completes', async ({ page }) => {
    test.setTimeout(120_000);
    await openWithModel(page, 'yolox-nano.onnx');
    await dropFiles(
      page.getByTestId('calibration-drop'),
      COCO.map((n) => imageFromFixture(`coco/${n}`)),
    );
    await expect(page.getByTestId('calibration-summary')).toHaveText(`${COCO.length} images`);
    await page.getByTestId('quant-preset').selectOption('U8S8');
    await page.getByTestId('calibrate-button').click();
    await expect(page.getByTestId('progress-done')).not.toHaveText('0', { timeout: 60_000 });
    await page.getByTestId('calibration-cancel').click();
    await expect(page.getByTestId('calibration-cancelled')).toBeVisible();
    await expect(page.getByTestId('calibration-progress')).toHaveCount(0);
    await expect(page.getByTestId('calibrate-button')).toBeEnabled();
    await expect(page.getByTestId('quantize-button')).toBeDisabled();

    // The page is usable: change the data and run again to the end.
    await page.getByTestId('calibration-clear').click();
    await dropFiles(page.getByTestId('calibration-drop'), [
      imageFromFixture('photos/yolox_dog.jpg'),
      imageFromFixture('photos/flower.jpg'),
    ]);
    await expect(page.getByTestId('calibration-summary')).toHaveText('2 images');
    await page.getByTestId('calibrate-button').click();
    await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 60_000 });
    await expect(page.getByTestId('calibration-used')).toHaveText('2');
    await expect(page.getByTestId('calibration-cancelled')).toHaveCount(0);
  });

  test('a model with custom-domain ops is refused by name, and no data is a named error too', async ({ page }) => {
    await openWithModel(page, 'negative/custom-domain-op.onnx');
    const error = page.getByTestId('calibration-error');
    await page.getByTestId('calibrate-button').click();
    await expect(error).toHaveAttribute('data-error-name', 'NoCalibrationDataError');
    await expect(error).toContainText('No calibration data');
    await error.getByRole('button', { name: 'Dismiss' }).click();
    await expect(error).toHaveCount(0);

    await dropFiles(page.getByTestId('calibration-drop'), imageFromFixture('photos/chelsea.png'));
    await page.getByTestId('calibrate-button').click();
    await expect(error).toHaveAttribute('data-error-name', 'CustomOpsError', { timeout: 30_000 });
    await expect(error).toContainText('com.microsoft.extensions');
    await expect(page.getByTestId('calibrate-button')).toBeEnabled();
  });
});
