/**
 * The sample's one click with WebGPU's software adapter present and without it (issue 34: "the sample reaches its
 * report in about the WASM time with an adapter present"), for suite "webgpu-browser": Debian's Chromium opens the
 * built page (served on the URL given) with `--enable-unsafe-webgpu` (the adapter is "google swiftshader"; Auto
 * keeps calibration on WASM) and without the flag (no adapter: WASM), alternating, `repeats` times each; each time
 * from the click on "Quantize the sample" to the report, with the backend the calibration card names and the load.
 * Usage: sampleWebgpuBrowser.ts <url> <repeats>
 */
import os from 'node:os';
import { withStudioPage } from './browser.ts';
import { median } from '../suites/calibrationSpeed.ts';

const [url, repeatsArg] = process.argv.slice(2);
const repeats = Number(repeatsArg);

async function clickToReport(adapter: boolean): Promise<{ seconds: number; backend: string; load: number }> {
  const load = os.loadavg()[0];
  return withStudioPage(
    url,
    async (page) => {
      const start = performance.now();
      await page.getByTestId('quantize-sample-button').click();
      await page
        .locator('[data-testid="sample-run"][data-status="done"], [data-testid="sample-run"][data-status="error"]')
        .waitFor({ timeout: 900_000 });
      if ((await page.getByTestId('sample-run').getAttribute('data-status')) === 'error')
        throw new Error(`sample run failed: ${await page.getByTestId('sample-error').textContent()}`);
      await page.getByTestId('eval-result').waitFor();
      const seconds = (performance.now() - start) / 1000;
      const backend = (await page.getByTestId('calibration-backend-why').textContent()) ?? '';
      return { seconds, backend, load };
    },
    undefined,
    adapter ? ['--enable-unsafe-webgpu'] : [],
  );
}

const withAdapter: { seconds: number; backend: string; load: number }[] = [];
const without: { seconds: number; backend: string; load: number }[] = [];
for (let r = 0; r < repeats; r++) {
  for (const adapter of r % 2 === 0 ? [true, false] : [false, true])
    (adapter ? withAdapter : without).push(await clickToReport(adapter));
}
const a = median(withAdapter.map((x) => x.seconds));
const b = median(without.map((x) => x.seconds));
const loads = [...withAdapter, ...without].map((x) => x.load);
console.log(
  JSON.stringify({
    model: 'the sample (PP-OCRv4 det, 12 scenes), click to report',
    adapter: 'google swiftshader present (Auto) / none',
    sampleWithAdapterSeconds: +a.toFixed(1),
    sampleWithoutAdapterSeconds: +b.toFixed(1),
    sampleRatio: +(a / b).toFixed(2),
    calibrationBackendWithAdapter: withAdapter[0]?.backend.slice(0, 160) ?? '',
    repeats,
    loadAverage: `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
  }),
);
