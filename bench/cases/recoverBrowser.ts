/**
 * One accuracy-recovery step in the studio itself: Debian's Chromium opens the built page (served by
 * `vite preview` on the URL given), a fixture detector and COCO images 1–16 are dropped, the XINT8 preset and
 * the detector's preprocessing chosen, one algorithm switched on in the "Recover accuracy" card, and
 * "Quantize with these" run in the recovery worker (onnxruntime-web WASM runs the models and the optimizers'
 * matrix products; the rest of CLE, AdaRound, AdaQuant and bias correction is TypeScript in the worker). The step's times are the recovery
 * report's, read from the rung row. Usage: recoverBrowser.ts <url> <model> <variant: cle|biasCorrection|adaround|adaquant> <iterations> <preprocess preset>
 */
import { cocoNames, openForCalibration, withStudioPage } from './browser.ts';

const [url, name, variant, iterations, preprocess] = process.argv.slice(2);
const coco = cocoNames().slice(0, 16);

await withStudioPage(url, async (page) => {
  await openForCalibration(page, name, coco, preprocess);
  await page.getByTestId('quant-preset').selectOption('XINT8');
  const card = page.getByTestId('recover-card');
  await card.getByTestId('recover-cle').setChecked(variant === 'cle');
  await card.getByTestId('recover-bias').setChecked(variant === 'biasCorrection');
  await card
    .getByTestId('recover-finetune')
    .selectOption(variant === 'adaround' || variant === 'adaquant' ? variant : 'none');
  await card.getByTestId('recover-iterations').fill(iterations);
  const start = performance.now();
  await card.getByTestId('recover-button').click();
  await page
    .locator(
      '[data-testid="recover-card"][data-recover-status="done"], [data-testid="recover-card"][data-recover-status="error"]',
    )
    .waitFor({ timeout: 3_600_000 });
  const wall = (performance.now() - start) / 1000;
  const error = await card
    .getByTestId('recover-error')
    .textContent()
    .catch(() => null);
  if (error && (await card.getAttribute('data-recover-status')) === 'error')
    throw new Error(`${name} ${variant}: ${error}`);
  const row = card.getByTestId('rung-row').first();
  const timing = JSON.parse((await row.getAttribute('data-timing'))!) as Record<string, number>;
  const cosine = Number(await row.getByTestId('rung-score').textContent());
  const algorithmSeconds = variant === 'cle' ? timing.cle : timing.gather + timing.finetune + timing.biasCorrection;
  console.log(
    JSON.stringify({
      model: name,
      variant,
      runtime: "Chromium worker: onnxruntime-web WASM runs the models and the optimizers' MatMul",
      iterations: variant === 'adaround' || variant === 'adaquant' ? Number(iterations) : null,
      cosineCalibration: +cosine.toFixed(5),
      algorithmSeconds: +algorithmSeconds.toFixed(2),
      gatherSeconds: +timing.gather.toFixed(2),
      optimizerSeconds: +(variant === 'cle' ? timing.cle : timing.finetune + timing.biasCorrection).toFixed(2),
      calibrateSeconds: +timing.calibrate.toFixed(2),
      totalSeconds: +wall.toFixed(2),
    }),
  );
});
