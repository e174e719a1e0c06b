/**
 * The NPU figure in a real Chromium: UltraFace quantized (XINT8) with every Exp kept float, evaluated
 * once more with those float parts in BF16 as the Ryzen AI compiler runs them. The page shows both
 * figures, labelled, and the downloaded JSON report carries both; the exclusion search and the ladder
 * offer the same target. Everything by keyboard where a user would.
 */
import fs from 'node:fs';
import { calibrateAndQuantize, expect, imageFromFixture, openWithModel, test } from './support.ts';

const CALIBRATION = ['face.png', 'grace_hopper.jpg', 'astronaut.png', 'chelsea.png'].map((n) =>
  imageFromFixture(`photos/${n}`),
);

test('ultraface with float parts: evaluation shows the figure as written and as the NPU runs it, and the report carries both', async ({
  page,
}, info) => {
  test.setTimeout(240_000);
  await openWithModel(page, 'ultraface-rfb-320.onnx');
  // Keep the box decoding's Exp float: a float part the NPU runs in BF16.
  await page.getByTestId('add-optype-select').selectOption('Exp');
  await page.getByTestId('add-optype-button').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('exclusion-count')).toHaveText('1');
  await calibrateAndQuantize(page, CALIBRATION, 'ultraface', 'XINT8');

  // Off by default: one figure, as before.
  const toggle = page.getByTestId('eval-npu-toggle');
  await expect(toggle).not.toBeChecked();
  await toggle.focus();
  await page.keyboard.press('Space');
  await expect(toggle).toBeChecked();
  await page.getByTestId('eval-layers-toggle').uncheck();
  await page.getByTestId('evaluate-button').click();
  await expect(page.getByTestId('eval-result')).toBeVisible({ timeout: 120_000 });

  const result = page.getByTestId('eval-result');
  await expect(result).toContainText('Mean output cosine, own Q/DQ arithmetic, as written');
  await expect(result).toContainText('Mean output cosine, as the NPU runs it');
  await expect(result).toContainText(/float parts in BF16: \d+ nodes?, \d+ activations?/);
  await expect(result).toContainText('Output metrics, as the NPU runs it (float parts in BF16)');
  const written = Number(await page.getByTestId('eval-mean-cosine').textContent());
  const npu = Number(await page.getByTestId('eval-npu-cosine').textContent());
  expect(written).toBeGreaterThan(0.99);
  expect(npu).toBeGreaterThan(0.99);
  await expect(page.getByTestId('eval-npu-outputs').locator('tr[data-metric="cosine"]')).toHaveCount(2);
  await result.screenshot({ path: info.outputPath('npu-figure.png') });

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-eval-json').click()]);
  const json = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
  expect(Number(json.fidelity.meanCosine).toFixed(6)).toBe(written.toFixed(6));
  expect(Number(json.npu.fidelity.meanCosine).toFixed(6)).toBe(npu.toFixed(6));
  expect(json.npu.floatNodes).toBeGreaterThan(0);
  const [html] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-eval-html').click()]);
  const text = fs.readFileSync((await html.path())!, 'utf8');
  expect(text).toContain('Mean output cosine, as the NPU runs it');
  expect(text).toContain(npu.toFixed(6));

  // The exclusion search can aim at the same figure, and says so.
  const suggestNpu = page.getByTestId('suggest-npu-toggle');
  await suggestNpu.check();
  await page.getByTestId('suggest-steps').fill('1');
  await page.getByTestId('suggest-target').fill('0.9999999');
  await page.getByTestId('suggest-button').click();
  await expect(page.getByTestId('suggest-outcome')).toContainText('as the NPU runs it (float parts in BF16)', {
    timeout: 150_000,
  });
});
