import { dropFiles, expect, expectSummaryOf, fileFromFixture, openStudio, test } from './support.ts';

const emptyFile = { name: 'empty.onnx', mimeType: 'application/octet-stream', buffer: Buffer.alloc(0) };

test.describe('bad input', () => {
  for (const [file, errorName, title] of [
    ['negative/truncated.onnx', 'TruncatedModelError', 'Truncated model'],
    ['negative/not-a-model.onnx', 'NotOnnxError', 'Not an ONNX model'],
  ] as const) {
    test(`${file} is refused as ${errorName}, and a good model still opens after it`, async ({ page }) => {
      await openStudio(page);
      await dropFiles(page.getByTestId('drop-zone'), fileFromFixture(file));

      const error = page.getByTestId('model-error');
      await expect(error).toHaveAttribute('data-error-name', errorName);
      await expect(error).toContainText(title);
      await expect(error).toContainText(file.split('/').pop()!);
      await expect(page.getByTestId('drop-zone')).toBeVisible();

      await dropFiles(page.getByTestId('drop-zone'), fileFromFixture('ultraface-rfb-320.onnx'));
      await expect(
        (await expectSummaryOf(page, 'ultraface-rfb-320.onnx')).getByTestId('summary-node-count'),
      ).toHaveText('242');
      await expect(error).toHaveCount(0);
    });
  }

  test('an empty file is refused as EmptyFileError', async ({ page }) => {
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), emptyFile);
    const error = page.getByTestId('model-error');
    await expect(error).toHaveAttribute('data-error-name', 'EmptyFileError');
    await expect(error).toContainText('Empty file');
  });

  test('a model with custom-domain ops opens with a warning', async ({ page }) => {
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), fileFromFixture('negative/custom-domain-op.onnx'));
    const summary = await expectSummaryOf(page, 'custom-domain-op.onnx');
    await expect(summary.getByTestId('summary-node-count')).toHaveText('105');
    await expect(summary.getByTestId('summary-note').filter({ hasText: 'com.microsoft.extensions' })).toBeVisible();
    await expect(summary.getByTestId('summary-custom-ops')).toContainText('com.microsoft.extensions.DecodeImage');
    await expect(page.getByTestId('model-error')).toHaveCount(0);
  });

  test('a bad drop keeps the open model shown, and Escape dismisses the error', async ({ page }) => {
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), fileFromFixture('yolox-nano.onnx'));
    const summary = await expectSummaryOf(page, 'yolox-nano.onnx');

    await dropFiles(page.locator('body'), fileFromFixture('negative/truncated.onnx'));
    const error = page.getByTestId('model-error');
    await expect(error).toHaveAttribute('data-error-name', 'TruncatedModelError');
    await expect(error).toContainText('yolox-nano.onnx is still open');
    await expect(summary.getByTestId('summary-file-name')).toHaveText('yolox-nano.onnx');
    await expect(summary.getByTestId('summary-node-count')).toHaveText('369');

    await page.keyboard.press('Escape');
    await expect(error).toHaveCount(0);
    await expect(summary.getByTestId('summary-node-count')).toHaveText('369');

    await dropFiles(page.locator('body'), emptyFile);
    await expect(error).toHaveAttribute('data-error-name', 'EmptyFileError');
    await error.getByRole('button', { name: 'Dismiss' }).click();
    await expect(error).toHaveCount(0);
    await expect(summary.getByTestId('summary-file-name')).toHaveText('yolox-nano.onnx');
  });

  test('a model refused while the user is far down the page comes into view, above the model it kept', async ({
    page,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), fileFromFixture('ultraface-rfb-320.onnx'));
    await expectSummaryOf(page, 'ultraface-rfb-320.onnx');
    // Calibrating, far below the model's summary: a drop anywhere on the page opens a model, so here too.
    const heading = page.getByRole('heading', { name: 'Calibrate and quantize' });
    await heading.scrollIntoViewIfNeeded();
    await dropFiles(heading, fileFromFixture('negative/truncated.onnx'));
    const error = page.getByTestId('model-error');
    await expect(error).toHaveAttribute('data-error-name', 'TruncatedModelError');
    await expect(error).toBeInViewport(); // it was out of sight at the top: the drop seemed to do nothing
    await expect(error).toContainText('ultraface-rfb-320.onnx is still open');
  });
});
