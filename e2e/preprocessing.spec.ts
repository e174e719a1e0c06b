/**
 * The preprocessing panel: the suggestion for a known model family, the JSON the command line takes
 * (exported, edited away from, imported back), a bad file named, the preview of the image chosen in
 * the strip, and the data drop target reached from the keyboard.
 */
import fs from 'node:fs';
import { dropFiles, expect, imageFromFixture, openWithModel, test } from './support.ts';

test('the preprocessing JSON exports, imports back, and a bad file is named', async ({ page }, info) => {
  await openWithModel(page, 'yolox-nano.onnx');
  await expect(page.getByTestId('preprocess-preset')).toHaveValue('yolo');
  const recognition = page.getByTestId('preprocess-recognition');
  await expect(recognition).toContainText('Recognised: YOLOX detector');
  await expect(recognition).toHaveAttribute('data-state', 'suggested');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('preprocess-export').click()]);
  expect(download.suggestedFilename()).toBe('yolox-nano.preprocess.json');
  const saved = info.outputPath('yolox-nano.preprocess.json');
  await download.saveAs(saved);
  expect(JSON.parse(fs.readFileSync(saved, 'utf8'))).toMatchObject({
    resize: 'letterbox',
    letterboxAlign: 'topLeft',
    padValue: 114,
    channelOrder: 'BGR',
    scale: 1,
  });

  await page.getByTestId('spec-channel-order').selectOption('RGB');
  await expect(page.getByTestId('preprocess-preset')).toHaveValue('custom');
  await page.getByTestId('preprocess-import').setInputFiles(saved);
  await expect(page.getByTestId('spec-channel-order')).toHaveValue('BGR');

  await page
    .getByTestId('preprocess-import')
    .setInputFiles({ name: 'bad.json', mimeType: 'application/json', buffer: Buffer.from('{"channelOrder": "GBR"}') });
  const error = page.getByTestId('preprocess-import-error');
  await expect(error).toContainText('bad.json');
  await expect(error).toContainText('channelOrder');
  await expect(page.getByTestId('spec-channel-order')).toHaveValue('BGR');

  // An edit leaves the suggestion on offer; one click takes it back, accepted.
  await page.getByTestId('spec-channel-order').selectOption('RGB');
  await expect(recognition).toHaveAttribute('data-state', 'changed');
  await page.getByTestId('preprocess-accept').click();
  await expect(recognition).toHaveAttribute('data-state', 'accepted');
  await expect(page.getByTestId('preprocess-preset')).toHaveValue('yolo');
  await expect(page.getByTestId('spec-channel-order')).toHaveValue('BGR');
});

test('a typed value the spec refuses is named under its field and changes nothing', async ({ page }) => {
  await openWithModel(page, 'ultraface-rfb-320.onnx');
  await expect(page.getByTestId('preprocess-preset')).toHaveValue('ultraface');
  await page.getByTestId('spec-scale').fill('abc');
  await expect(page.getByRole('alert').filter({ hasText: 'not a number' })).toBeVisible();
  await expect(page.getByTestId('preprocess-preset')).toHaveValue('ultraface');
  await page.getByTestId('spec-scale').fill('1/255');
  await expect(page.getByTestId('preprocess-preset')).toHaveValue('custom');
});

test('the preview shows the image chosen in the strip, and the data target works from the keyboard', async ({
  page,
}) => {
  await openWithModel(page, 'yolox-nano.onnx');
  const target = page.getByTestId('calibration-drop');
  await target.focus();
  await expect(target).toBeFocused();
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), target.press('Enter')]);
  expect(chooser.isMultiple()).toBe(true);
  await chooser.setFiles([]);

  await dropFiles(target, [imageFromFixture('photos/camera.png'), imageFromFixture('photos/yolox_dog.jpg')]);
  await expect(page.getByTestId('preview-original')).toHaveAttribute('aria-label', /camera\.png · 512×512/);
  await page.getByRole('button', { name: 'Preview yolox_dog.jpg' }).click();
  await expect(page.getByTestId('preview-original')).toHaveAttribute('aria-label', /yolox_dog\.jpg · 768×576/);
  await expect(page.getByTestId('preview-processed')).toHaveAttribute('aria-label', /416×416/);
});

test('symbolic dimensions are filled at once, then follow the first image', async ({ page }) => {
  await openWithModel(page, 'yunet-n-dynamic.onnx');
  await expect(page.getByTestId('preprocess-recognition')).toContainText('YuNet face detector');
  await expect(page.getByTestId('spec-dim-batch')).toHaveValue('1');
  await expect(page.getByTestId('spec-dim-height')).toHaveValue('640');
  await expect(page.getByTestId('spec-dim-width')).toHaveValue('640');
  await dropFiles(page.getByTestId('calibration-drop'), imageFromFixture('photos/yolox_dog.jpg'));
  // 768 × 576 scaled to fit 640, in multiples of 32.
  await expect(page.getByTestId('spec-dim-height')).toHaveValue('480');
  await expect(page.getByTestId('spec-dim-width')).toHaveValue('640');
  await expect(page.getByTestId('preview-processed')).toHaveAttribute('aria-label', /640×480|480×640/);
  await expect(page.getByTestId('calibrate-button')).toBeEnabled();
});
