/**
 * Calibration throughput in the studio itself: Debian's Chromium opens the built page (served by
 * `vite preview` on the URL given), a detector and COCO images 1–8 are dropped, a preset chosen, and
 * Calibrate is timed from the click to the result; twice, the second run warm. onnxruntime-web's WASM
 * backend (no GPU here). Usage: calibrationBrowser.ts <url> <model> <preset: U8S8|XINT8> <preprocess preset>
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from '@playwright/test';

const [url, name, preset, preprocess] = process.argv.slice(2);
const fixtures = path.resolve(import.meta.dirname, '../../../shared/fixtures');
const coco = fs.readdirSync(path.join(fixtures, 'images/coco')).sort().slice(0, 8);

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
  await page.getByTestId('quant-preset').selectOption(preset);
  const timeRun = async () => {
    const start = performance.now();
    await page.getByTestId('calibrate-button').click();
    await page.getByTestId('calibration-result').waitFor({ timeout: 300_000 });
    const seconds = (performance.now() - start) / 1000;
    const backend = (await page.getByTestId('calibration-result').textContent()) ?? '';
    return { seconds, backend };
  };
  const first = await timeRun();
  const warm = await timeRun();
  console.log(JSON.stringify({
    model: name,
    method: preset === 'XINT8' ? 'PowerOfTwoMinMSE' : 'MinMax',
    runtime: 'Chromium, onnxruntime-web WASM',
    images: coco.length,
    firstRunSeconds: +first.seconds.toFixed(2),
    seconds: +warm.seconds.toFixed(2),
    imagesPerSecond: +(coco.length / warm.seconds).toFixed(2),
  }));
} finally {
  await browser.close();
}
