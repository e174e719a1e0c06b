/**
 * The node inspector's histogram of a calibrated tensor, in a real Chromium: calibrate, select a node
 * with the graph search, "Show histogram" on its output, and the picture (computed in the evaluation
 * worker over the first calibration samples) appears with the calibrated range marked. On YOLOX-nano
 * the same step is timed: the measurement behind computing it on demand rather than on every selection.
 */
import type { Page } from '@playwright/test';
import { dropFiles, expect, imageFromFixture, openWithModel, test } from './support.ts';

async function calibrate(page: Page, model: string, photos: string[], preset: string): Promise<void> {
  await openWithModel(page, model);
  await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });
  await dropFiles(
    page.getByTestId('calibration-drop'),
    photos.map((n) => imageFromFixture(`photos/${n}`)),
  );
  await expect(page.getByTestId('calibration-summary')).toHaveText(`${photos.length} images`);
  await page.getByTestId('preprocess-preset').selectOption(preset);
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 90_000 });
}

/** Selects `id` with the search box, shows its first output's histogram; returns the seconds it took. */
async function showHistogram(page: Page, id: string): Promise<number> {
  const search = page.getByTestId('graph-search');
  await search.fill(id);
  await search.press('Enter');
  const inspector = page.getByTestId('node-inspector');
  await expect(inspector).toHaveAttribute('data-node-id', id);
  const outputs = inspector.locator('.inspector-list').last();
  await expect(outputs.getByTestId('inspector-range')).toBeVisible();
  const start = Date.now();
  await outputs.getByTestId('show-histogram').click();
  await expect(outputs.getByTestId('tensor-histogram')).toBeVisible({ timeout: 60_000 });
  return (Date.now() - start) / 1000;
}

test.describe('inspector histogram', () => {
  test('UltraFace: a calibrated output shows its histogram with the calibrated range marked, kept when selected again', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await calibrate(page, 'ultraface-rfb-320.onnx', ['face.png', 'grace_hopper.jpg'], 'ultraface');
    await showHistogram(page, 'Relu_2');
    const outputs = page.getByTestId('node-inspector').locator('.inspector-list').last();
    const svg = outputs.getByTestId('tensor-histogram');
    expect(await svg.locator('.tensor-histogram__bar').count()).toBeGreaterThan(8);
    await expect(svg.locator('.tensor-histogram__edge')).toHaveCount(2);
    await expect(outputs).toContainText('2 samples');

    // Another node, then back: the histogram is kept, not computed again.
    const search = page.getByTestId('graph-search');
    await search.fill('Conv_3');
    await search.press('Enter');
    await expect(page.getByTestId('node-inspector')).toHaveAttribute('data-node-id', 'Conv_3');
    await search.fill('Relu_2');
    await search.press('Enter');
    await expect(page.getByTestId('node-inspector')).toHaveAttribute('data-node-id', 'Relu_2');
    await expect(outputs.getByTestId('tensor-histogram')).toBeVisible();
    await expect(outputs.getByTestId('show-histogram')).toHaveCount(0);
  });
});
