/**
 * The sample opened (not run): it comes complete, with its own drawn calibration scenes, a separate
 * held-out set chosen for evaluation, PaddleOCR's preprocessing and its symbolic sizes filled in.
 */
import { expect, expectSummaryOf, openStudio, test } from './support.ts';

test('the sample opens in one click with its calibration scenes, held-out scenes, preprocessing and input size', async ({
  page,
}) => {
  await openStudio(page);
  await page.getByTestId('sample-model-button').click();

  const summary = await expectSummaryOf(page, 'ppocr-det.onnx');
  await expect(summary.getByTestId('summary-node-count')).toHaveText('672');
  await expect(summary.getByTestId('summary-input').getByTestId('tensor-name')).toHaveText('x');
  await expect(page.getByTestId('model-error')).toHaveCount(0);

  await expect(page.getByTestId('calibration-summary')).toHaveText('12 images');
  await expect(page.getByTestId('calibration-thumbnails').locator('img')).not.toHaveCount(0);
  await expect(page.getByTestId('eval-source-own')).toBeChecked();
  await expect(page.getByTestId('eval-summary')).toContainText('6');

  await expect(page.getByTestId('preprocess-preset')).toHaveValue('paddleocr-det');
  await expect(page.getByTestId('preprocess-recognition')).toContainText('PaddleOCR text detector');
  await expect(page.getByTestId('spec-channel-order')).toHaveValue('BGR');
  await expect(page.getByTestId('spec-mean')).toHaveValue('0.485, 0.456, 0.406');
  await expect(page.getByTestId('spec-std')).toHaveValue('0.229, 0.224, 0.225');
  for (const dim of ['p2o.DynamicDimension.1', 'p2o.DynamicDimension.2'])
    await expect(page.getByTestId(`spec-dim-${dim}`)).toHaveValue('320');
  await expect(page.getByTestId('spec-dim-p2o.DynamicDimension.0')).toHaveValue('1');
  await expect(page.getByTestId('preview-processed')).toHaveAttribute('aria-label', /320×320/);
  await expect(page.getByTestId('sample-quantize')).toBeEnabled();
});
