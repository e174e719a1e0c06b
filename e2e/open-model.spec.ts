import { dropFiles, expect, expectSummaryOf, fileFromFixture, model, openStudio, test } from './support.ts';

test.describe('opening a model', () => {
  test('a model dropped on the page shows its node count and input', async ({ page }) => {
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), fileFromFixture('yolox-nano.onnx'));

    const summary = await expectSummaryOf(page, 'yolox-nano.onnx');
    await expect(summary.getByTestId('summary-node-count')).toHaveText('369');
    const inputs = summary.getByTestId('summary-input');
    await expect(inputs).toHaveCount(1);
    await expect(inputs.getByTestId('tensor-name')).toHaveText('images');
    await expect(inputs.getByTestId('tensor-type')).toHaveText('float32');
    await expect(inputs.getByTestId('tensor-shape')).toHaveText('1 × 3 × 416 × 416');
    await expect(summary.getByTestId('summary-outputs').getByTestId('tensor-shape')).toHaveText('1 × 3549 × 85');
    await expect(summary.getByTestId('op-histogram').locator('li').first()).toContainText('Conv');
    await expect(page.getByTestId('model-error')).toHaveCount(0);
  });

  test('the idle page rehearses the first screen on a tiny model and leaves nothing of it behind', async ({ page }) => {
    await openStudio(page);
    await page.waitForFunction(() => performance.getEntriesByName('warm-up:first-screen').length === 1);
    expect(await page.evaluate(() => document.body.children.length)).toBe(1); // only the page's root
    expect(await page.evaluate(() => '__qsGraph' in window)).toBe(false);
    await expect(page.getByTestId('model-summary')).toHaveCount(0);
    await expect(page.getByTestId('graph-screen')).toHaveCount(0);
    await expect(page.getByTestId('drop-zone')).toBeVisible();
    await expect(page.getByTestId('calibration-drop')).toHaveCount(0); // the later steps wait for a real graph
    await page.getByTestId('file-input').setInputFiles(model('mnist.onnx'));
    await expectSummaryOf(page, 'mnist.onnx');
    await expect(page.locator('[data-graph-drawn="true"]')).toHaveCount(1);
    expect(await page.evaluate(() => performance.getEntriesByName('graph:drawn').length)).toBe(1);
  });

  test('a model chosen in the file picker opens', async ({ page }) => {
    await openStudio(page);
    await page.getByTestId('file-input').setInputFiles(model('ultraface-rfb-320.onnx'));

    const summary = await expectSummaryOf(page, 'ultraface-rfb-320.onnx');
    await expect(summary.getByTestId('summary-node-count')).toHaveText('242');
    await expect(summary.getByTestId('summary-output')).toHaveCount(2);
  });

  test('the Choose file button opens the file dialog, from the keyboard too', async ({ page }) => {
    await openStudio(page);
    const chooser = page.waitForEvent('filechooser');
    await page
      .getByTestId('drop-zone')
      .getByRole('button', { name: /drop an onnx model here/i })
      .focus();
    await page.keyboard.press('Enter');
    const dialog = await chooser;
    expect(dialog.isMultiple()).toBe(true);
    await dialog.setFiles(model('ultraface-rfb-320.onnx'));
    await expect((await expectSummaryOf(page, 'ultraface-rfb-320.onnx')).getByTestId('summary-node-count')).toHaveText(
      '242',
    );
  });

  test('a second drop replaces the open model', async ({ page }) => {
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), fileFromFixture('ultraface-rfb-320.onnx'));
    await expectSummaryOf(page, 'ultraface-rfb-320.onnx');

    await dropFiles(page.locator('body'), fileFromFixture('yolox-nano.onnx'));
    const summary = await expectSummaryOf(page, 'yolox-nano.onnx');
    await expect(summary.getByTestId('summary-node-count')).toHaveText('369');
  });

  test('symbolic dimensions are shown by name', async ({ page }) => {
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), fileFromFixture('yunet-n-dynamic.onnx'));
    const summary = await expectSummaryOf(page, 'yunet-n-dynamic.onnx');
    await expect(summary.getByTestId('summary-input').getByTestId('tensor-shape')).toHaveText(
      'batch × 3 × height × width',
    );
  });
});
