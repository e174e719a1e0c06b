import { expect, expectSummaryOf, openStudio, test } from './support.ts';

test('the sample model button opens the PP-OCR text detector in one click', async ({ page }) => {
  await openStudio(page);
  await page.getByTestId('sample-model-button').click();

  const summary = await expectSummaryOf(page, 'ppocr-det.onnx');
  await expect(summary.getByTestId('summary-node-count')).toHaveText('672');
  await expect(summary.getByTestId('summary-input').getByTestId('tensor-name')).toHaveText('x');
  await expect(page.getByTestId('model-error')).toHaveCount(0);
});
