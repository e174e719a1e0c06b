/**
 * One accuracy-recovery step in the studio itself: Debian's Chromium opens the built page (served by
 * `vite preview` on the URL given), a fixture detector and COCO images 1–16 are dropped, the XINT8 preset and
 * the detector's preprocessing chosen, one algorithm switched on in the "Recover accuracy" card, and
 * "Quantize with these" run in the recovery worker (onnxruntime-web WASM runs the models; CLE, AdaRound,
 * AdaQuant and bias correction are plain TypeScript in the worker). The step's times are the recovery
 * report's, read from the rung row. Usage: recoverBrowser.ts <url> <model> <variant: cle|biasCorrection|adaround|adaquant> <iterations> <preprocess preset>
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';

const [url, name, variant, iterations, preprocess] = process.argv.slice(2);
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const coco = fs.readdirSync(path.join(fixtures, 'images/coco')).sort().slice(0, 16);

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  await page.goto(url);
  await page.getByTestId('drop-zone').drop({ files: { name, mimeType: 'application/octet-stream', buffer: fs.readFileSync(path.join(fixtures, 'models', name)) } });
  await page.getByTestId('calibration-drop').waitFor();
  await page.getByTestId('calibration-drop').drop({
    files: coco.map((f) => ({ name: f, mimeType: 'image/jpeg', buffer: fs.readFileSync(path.join(fixtures, 'images/coco', f)) })),
  });
  await page.getByTestId('preprocess-preset').selectOption(preprocess);
  if (name.startsWith('yunet')) {
    // YuNet's input size is symbolic: 320 × 320, as the other suites run it.
    for (const [dim, value] of [['batch', '1'], ['height', '320'], ['width', '320']]) {
      const field = page.getByTestId(`spec-dim-${dim}`);
      if (await field.count()) await field.fill(value);
    }
  }
  await page.getByTestId('quant-preset').selectOption('XINT8');
  const card = page.getByTestId('recover-card');
  await card.getByTestId('recover-cle').setChecked(variant === 'cle');
  await card.getByTestId('recover-bias').setChecked(variant === 'biasCorrection');
  await card.getByTestId('recover-finetune').selectOption(variant === 'adaround' || variant === 'adaquant' ? variant : 'none');
  await card.getByTestId('recover-iterations').fill(iterations);
  const start = performance.now();
  await card.getByTestId('recover-button').click();
  await page.locator('[data-testid="recover-card"][data-recover-status="done"], [data-testid="recover-card"][data-recover-status="error"]').waitFor({ timeout: 3_600_000 });
  const wall = (performance.now() - start) / 1000;
  const error = await card.getByTestId('recover-error').textContent().catch(() => null);
  if (error && (await card.getAttribute('data-recover-status')) === 'error') throw new Error(`${name} ${variant}: ${error}`);
  const row = card.getByTestId('rung-row').first();
  const timing = JSON.parse((await row.getAttribute('data-timing'))!) as Record<string, number>;
  const cosine = Number(await row.getByTestId('rung-score').textContent());
  const algorithmSeconds = variant === 'cle' ? timing.cle : timing.gather + timing.finetune + timing.biasCorrection;
  console.log(JSON.stringify({
    model: name,
    variant,
    runtime: 'Chromium worker: onnxruntime-web WASM runs the models and the optimizers\' MatMul',
    iterations: variant === 'adaround' || variant === 'adaquant' ? Number(iterations) : null,
    cosineCalibration: +cosine.toFixed(5),
    algorithmSeconds: +algorithmSeconds.toFixed(2),
    gatherSeconds: +timing.gather.toFixed(2),
    optimizerSeconds: +(variant === 'cle' ? timing.cle : timing.finetune + timing.biasCorrection).toFixed(2),
    calibrateSeconds: +timing.calibrate.toFixed(2),
    totalSeconds: +wall.toFixed(2),
  }));
} finally {
  await browser.close();
}
