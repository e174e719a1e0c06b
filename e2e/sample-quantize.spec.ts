/**
 * The newcomer's path, exactly: open the page, one click on "Quantize the sample", and the report is
 * shown (output metrics, the per-layer chart); the quantized model downloads and runs in
 * onnxruntime-node. Nothing else is clicked, typed or dropped: the sample brings its own drawn text
 * scenes and preprocessing. The click-to-report time is printed (it is the number the README's
 * "one click" promise rests on; bench suite `sample` records it). The card names the settings it ran (the sample's
 * own, measured best on it) and shows the text boxes, float beside quantized, scene by scene.
 */
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';
import { expect, openStudio, test } from './support.ts';

test('one click on the sample: calibrated, quantized, evaluated, report shown; the model runs in onnxruntime-node', async ({
  page,
}, info) => {
  test.setTimeout(240_000);
  await openStudio(page);
  const started = Date.now();
  await page.getByTestId('quantize-sample-button').click();

  const run = page.getByTestId('sample-run');
  await expect(run).toBeVisible();
  // The clicked button is gone with the empty page: the focus is on Cancel, not lost to the page's top.
  await expect(page.getByTestId('sample-cancel')).toBeFocused();
  await expect(page.getByTestId('sample-stage-calibrate')).toHaveAttribute('data-state', 'running', {
    timeout: 60_000,
  });
  await expect(run).toHaveAttribute('data-status', 'done', { timeout: 220_000 });
  const report = page.getByTestId('eval-result');
  await expect(report).toBeVisible();
  const seconds = (Date.now() - started) / 1000;
  console.log(`sample: click to report ${seconds.toFixed(1)} s`);
  info.annotations.push({ type: 'click-to-report', description: `${seconds.toFixed(1)} s` });

  // The report: output metrics, the per-layer chart, judged on the held-out scenes, not the calibration ones.
  await expect(report.getByTestId('eval-mean-cosine')).toHaveText(/^0\.\d+|^1\.0+/);
  console.log(
    `sample: mean output cosine ${await report.getByTestId('eval-mean-cosine').textContent()} on the held-out scenes`,
  );
  await expect(report.locator('table').first()).toBeVisible();
  await expect(page.getByTestId('eval-layer-chart')).toBeVisible();
  await expect(report).toContainText('6 samples');
  await expect(page.getByTestId('calibration-used')).toHaveText('12');
  await expect(report).toBeInViewport();

  // The card: the settings it ran, and what a detector's user judges it by, the text boxes, float beside quantized.
  await expect(run.getByTestId('sample-settings')).toHaveText('A8W8, per-channel weights, Sequential ranges');
  await expect(page.getByTestId('quant-preset')).toHaveValue('A8W8');
  const task = run.getByTestId('sample-task');
  await expect(task).toContainText(/Of the float model's \d+ boxes at score ≥ 0\.6: \d+ found/);
  await expect(task.getByTestId('sample-task-figures')).toContainText(/mAP@0\.5 \d+\.\d %/);
  const picture = task.getByTestId('sample-task-picture');
  await expect(picture.locator('figure')).toHaveCount(2);
  await expect(picture.locator('figcaption')).toHaveText(['Float model', 'Quantized model']);
  expect(await picture.locator('svg rect').count(), 'boxes drawn on the scene').toBeGreaterThan(2);
  await expect(task.getByTestId('sample-task-at')).toHaveText('Scene 1 of 6, worst agreement first');
  await expect(task.getByTestId('sample-task-previous')).toBeDisabled();
  const firstScene = await picture.locator('h4').textContent();
  await task.getByTestId('sample-task-next').click();
  await expect(task.getByTestId('sample-task-at')).toHaveText('Scene 2 of 6, worst agreement first');
  await expect(picture.locator('h4')).not.toHaveText(firstScene!);

  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('sample-download-model').click(),
  ]);
  expect(download.suggestedFilename()).toBe('ppocr-det.quant.onnx');
  const saved = info.outputPath('ppocr-det.quant.onnx');
  await download.saveAs(saved);
  expect(fs.readFileSync(saved).includes(Buffer.from('QuantizeLinear')), 'the downloaded model has Q/DQ nodes').toBe(
    true,
  );
  const session = await ort.InferenceSession.create(saved, { graphOptimizationLevel: 'basic' });
  try {
    const x = new Float32Array(3 * 320 * 320).map((_, i) => Math.sin(i / 97));
    const out = await session.run({ x: new ort.Tensor('float32', x, [1, 3, 320, 320]) });
    const map = Object.values(out)[0];
    expect(map.dims).toEqual([1, 1, 320, 320]);
    expect((map.data as Float32Array).every((v) => v >= 0 && v <= 1)).toBe(true); // a probability map
  } finally {
    await session.release();
  }
});

test('Cancel by keyboard mid-calibration: the step it stopped is marked and the focus stays on the card', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await openStudio(page);
  await page.getByTestId('quantize-sample-button').focus();
  await page.keyboard.press('Enter');
  const cancel = page.getByTestId('sample-cancel');
  await expect(page.getByTestId('sample-stage-calibrate')).toHaveAttribute('data-state', 'running', {
    timeout: 60_000,
  });
  await expect(cancel).toBeFocused();
  await page.keyboard.press('Enter');
  const run = page.getByTestId('sample-run');
  await expect(run).toHaveAttribute('data-status', 'cancelled');
  const stopped = page.getByTestId('sample-stage-calibrate');
  await expect(stopped).toHaveAttribute('data-state', 'cancelled');
  await expect(stopped).toHaveText('✕Calibratecancelled');
  await expect(page.getByTestId('sample-stage-quantize')).toHaveAttribute('data-state', 'todo');
  await expect(page.getByTestId('sample-quantize')).toBeFocused();
  await run.screenshot({ path: test.info().outputPath('sample-cancelled.png') });
});
