/**
 * The newcomer's path, exactly: open the page, one click on "Quantize the sample", and the report is
 * shown (output metrics, the per-layer chart); the quantized model downloads and runs in
 * onnxruntime-node. Nothing else is clicked, typed or dropped: the sample brings its own drawn text
 * scenes and preprocessing. The click-to-report time is printed (it is the number the README's
 * "one click" promise rests on; bench suite `sample` records it).
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
