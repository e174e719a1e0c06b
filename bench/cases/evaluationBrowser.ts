/**
 * Evaluation time per image in the studio itself: Debian's Chromium opens the built page (served by
 * `vite preview` on the URL given), a detector is dropped, calibrated on COCO images 1–8 with XINT8
 * and quantized, then evaluated on COCO images 17–24 dropped as a separate evaluation set, outputs
 * only or layer by layer; timed from the click to the result (images decoded, sessions created, both
 * models run, report built) and as the page's own "time per image" (model runs only), second run
 * warm. onnxruntime-web's WASM backend (no GPU here).
 * Usage: evaluationBrowser.ts <url> <model> <preprocess preset> <outputs|layers>
 */
import { cocoFile, cocoNames, openForCalibration, withStudioPage } from './browser.ts';

const [url, name, preprocess, mode] = process.argv.slice(2);
const coco = cocoNames();

await withStudioPage(url, async (page) => {
  await openForCalibration(page, name, coco.slice(0, 8), preprocess);
  await page.getByTestId('quant-preset').selectOption('XINT8');
  await page.getByTestId('calibrate-button').click();
  await page.getByTestId('calibration-result').waitFor({ timeout: 300_000 });
  await page.getByTestId('quantize-button').click();
  await page.getByTestId('quantize-result').waitFor({ timeout: 300_000 });
  await page.getByTestId('eval-drop').drop({ files: coco.slice(16, 24).map(cocoFile) });
  if (mode !== 'layers') await page.getByTestId('eval-layers-toggle').uncheck();
  const timeRun = async () => {
    const start = performance.now();
    await page.getByTestId('evaluate-button').click();
    await page
      .locator('[data-testid="evaluate-card"][data-eval-status="running"]')
      .waitFor({ timeout: 10_000 })
      .catch(() => undefined);
    await page
      .locator(
        '[data-testid="evaluate-card"][data-eval-status="done"], [data-testid="evaluate-card"][data-eval-status="error"]',
      )
      .waitFor({ timeout: 300_000 });
    const error = page.getByTestId('eval-error');
    if (await error.count()) throw new Error(`evaluation failed: ${await error.textContent()}`);
    return (performance.now() - start) / 1000;
  };
  const first = await timeRun();
  const warm = await timeRun();
  const ms = Number(((await page.getByTestId('eval-seconds-per-image').textContent()) ?? '').replace(/[^\d.]/g, ''));
  const rows = await page.getByTestId('eval-layer-row').count();
  console.log(
    JSON.stringify({
      model: name,
      compare: mode === 'layers' ? 'layer-wise' : 'outputs only',
      runtime: 'Chromium, onnxruntime-web WASM',
      images: 8,
      msPerImage: ms,
      totalSeconds: +warm.toFixed(2),
      firstRunSeconds: +first.toFixed(2),
      layerRowsShown: rows,
      meanCosine: Number(await page.getByTestId('eval-mean-cosine').textContent()),
    }),
  );
});
