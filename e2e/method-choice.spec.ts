/**
 * The calibration method chosen on held-in samples, A8W8's default, in a real Chromium: the settings card says so,
 * the calibration worker measures each method (even samples calibrate, odd ones judge at onnxruntime-web's
 * default options) and the result shows which was chosen with each figure; a fixed method replaces it and makes
 * those ranges stale. Screenshots at 1440 × 900 and 900 px wide.
 */
import fs from 'node:fs';
import { dropFiles, expect, imageFromFixture, openWithModel, test } from './support.ts';

const COCO = fs.readdirSync(`${import.meta.dirname}/../../shared/fixtures/images/coco`).sort();

test("A8W8's calibration method is chosen on held-in samples, shown with each method's figure; a named method overrides it", async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openWithModel(page, 'ultraface-rfb-320.onnx');
  await dropFiles(
    page.getByTestId('calibration-drop'),
    COCO.slice(0, 4).map((n) => imageFromFixture(`coco/${n}`)),
  );
  await page.getByTestId('quant-preset').selectOption('A8W8');
  const method = page.getByTestId('calibration-method');
  await expect(method).toHaveValue('');
  await expect(page.getByTestId('calibration-method-hint')).toContainText(
    'Calibration method: chosen on held-in samples (default)',
  );

  await page.getByTestId('quant-settings').scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('method-default-1440.png') });

  await page.getByTestId('calibrate-button').click();
  const choice = page.getByTestId('calibration-method-choice');
  await expect(choice).toBeVisible({ timeout: 150_000 });
  await expect(choice).toContainText('2 calibrated, 2 judged');
  const rows = choice.getByTestId('method-choice-row');
  await expect(rows).toHaveCount(3);
  const measured = await rows.evaluateAll((trs) =>
    trs.map((tr) => ({
      method: tr.querySelector('th')!.textContent!,
      cosine: Number(tr.querySelector('td')!.textContent),
      chosen: tr.getAttribute('aria-current') === 'true',
    })),
  );
  expect(measured.map((m) => m.method)).toEqual(['MinMax', 'MinMSE', 'Entropy']);
  const chosen = (await choice.getAttribute('data-chosen'))!;
  expect(measured.filter((m) => m.chosen).map((m) => m.method)).toEqual([chosen]);
  const best = Math.max(...measured.map((m) => m.cosine));
  expect(measured.find((m) => m.method === chosen)!.cosine).toBe(best);
  await choice.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('method-choice-1440.png') });
  await page.setViewportSize({ width: 900, height: 900 });
  await choice.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('method-choice-900.png') });

  // The model is quantized with the chosen method's ranges: no staleness, and it quantizes.
  await expect(page.getByTestId('calibration-stale')).toHaveCount(0);
  await page.getByTestId('quantize-button').click();
  await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 60_000 });

  // A named method: those ranges are stale, and a calibration with it measures no choice.
  await method.selectOption('MinMax');
  await expect(page.getByTestId('calibration-method-hint')).toContainText('Calibration method: MinMax');
  await expect(page.getByTestId('calibration-stale')).toBeVisible();
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toContainText('MinMax', { timeout: 60_000 });
  await expect(page.getByTestId('calibration-stale')).toHaveCount(0);
  await expect(choice).toHaveCount(0);
  await page.getByTestId('quant-settings').scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('method-fixed-900.png') });
});
