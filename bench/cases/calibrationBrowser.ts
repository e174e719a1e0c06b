/**
 * Calibration throughput in the studio itself: Debian's Chromium opens the built page (served by
 * `vite preview` on the URL given), a detector and COCO images 1–8 are dropped, a preset chosen, and
 * Calibrate is timed from the click to the result; twice, the second run warm. onnxruntime-web's WASM
 * backend (no GPU here). Usage: calibrationBrowser.ts <url> <model> <preset: U8S8|XINT8> <preprocess preset>
 */
import { cocoNames, openForCalibration, withStudioPage } from './browser.ts';

const [url, name, preset, preprocess] = process.argv.slice(2);
const coco = cocoNames().slice(0, 8);

await withStudioPage(url, async (page) => {
  await openForCalibration(page, name, coco, preprocess);
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
  console.log(
    JSON.stringify({
      model: name,
      method: preset === 'XINT8' ? 'PowerOfTwoMinMSE' : 'MinMax',
      runtime: 'Chromium, onnxruntime-web WASM',
      images: coco.length,
      firstRunSeconds: +first.seconds.toFixed(2),
      seconds: +warm.seconds.toFixed(2),
      imagesPerSecond: +(coco.length / warm.seconds).toFixed(2),
    }),
  );
});
