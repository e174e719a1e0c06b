/**
 * Calibration and evaluation files checked as they are added (issue 29, point 5): a corrupt image is named
 * at once and not taken, the "+N" tile opens the whole list, and the evaluation set has an "Add files…"
 * button and thumbnails. MNIST: nothing here needs a run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { IMAGES, dropFiles, expect, imageFromFixture, openWithModel, test } from './support.ts';

const CORRUPT = {
  name: 'torn.png',
  mimeType: 'image/png',
  buffer: fs.readFileSync(path.join(IMAGES, 'photos/chelsea.png')).subarray(0, 300),
};

test('a corrupt image is named as it is added; +N opens every image; the evaluation set has a file button and thumbnails', async ({
  page,
}) => {
  await openWithModel(page, 'mnist.onnx');
  const coco = fs.readdirSync(path.join(IMAGES, 'coco')).sort().slice(0, 14);
  await dropFiles(page.getByTestId('calibration-drop'), [...coco.map((n) => imageFromFixture(`coco/${n}`)), CORRUPT]);
  await expect(page.getByTestId('calibration-summary')).toHaveText('14 images');
  const rejected = page.getByTestId('calibration-rejected');
  await expect(rejected.getByTestId('rejected-file')).toHaveText([/^torn\.png: not a readable image/]);

  const strip = page.getByTestId('calibration-thumbnails');
  await expect(strip.getByTestId('thumbnail')).toHaveCount(12);
  await strip.getByTestId('thumbnails-toggle').click();
  await expect(strip.getByTestId('thumbnail')).toHaveCount(14);
  await expect(strip.getByTestId('thumbnail').last()).toHaveAttribute('title', coco[13]);
  await strip.getByTestId('thumbnails-toggle').click();
  await expect(strip.getByTestId('thumbnail')).toHaveCount(12);

  const chooser = page.waitForEvent('filechooser');
  await page.getByTestId('eval-add-files').click();
  await (
    await chooser
  ).setFiles([imageFromFixture('photos/flower.jpg'), CORRUPT, imageFromFixture('photos/camera.png')]);
  await expect(page.getByTestId('eval-summary')).toHaveText('2 evaluation images');
  await expect(page.getByTestId('eval-rejected')).toContainText('torn.png: not a readable image');
  const thumbs = page.getByTestId('eval-thumbnails').locator('img');
  await expect(thumbs).toHaveCount(2);
  await expect
    .poll(() => thumbs.evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).naturalWidth > 0)))
    .toBe(true);
});
