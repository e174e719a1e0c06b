import { expect, openStudio, test } from './support.ts';

test('dragging files over the page shows the drop overlay, and leaving hides it', async ({ page }) => {
  await openStudio(page);
  const dataTransfer = await page.evaluateHandle(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(8)], 'model.onnx'));
    return dt;
  });
  const overlay = page.getByTestId('drop-overlay');
  await expect(overlay).toHaveCount(0);

  await page.locator('h1').dispatchEvent('dragenter', { dataTransfer });
  await expect(overlay).toBeVisible();
  await expect(overlay).toContainText('Drop to open');

  await page.locator('h1').dispatchEvent('dragleave', { dataTransfer });
  await expect(overlay).toHaveCount(0);
  await expect(page.getByTestId('model-error')).toHaveCount(0);
});

test('dragging text (no files) leaves the page alone', async ({ page }) => {
  await openStudio(page);
  const dataTransfer = await page.evaluateHandle(() => {
    const dt = new DataTransfer();
    dt.setData('text/plain', 'hello');
    return dt;
  });
  await page.locator('h1').dispatchEvent('dragenter', { dataTransfer });
  await expect(page.getByTestId('drop-overlay')).toHaveCount(0);
});
