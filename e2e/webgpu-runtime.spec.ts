/**
 * WebGPU by measurement (issue 34), in headless Chromium with `--enable-unsafe-webgpu`: its adapter is the
 * software one ("google swiftshader"). Auto never calibrates on it: the sample reaches its report on WASM,
 * and the page says why. Forced on (the runtime switch), WebGPU calibrates with its outputs packed into one
 * read-back, and its ranges equal the WASM run's to float rounding.
 */
import fs from 'node:fs';
import { downloadedRanges, rangesOff } from './ranges.ts';
import { dropFiles, expect, imageFromFixture, openStudio, openWithModel, test } from './support.ts';

test.use({
  launchOptions: {
    executablePath: '/usr/bin/chromium',
    // WebNN's flag too: Debian's Chromium then exposes navigator.ml, but makes no WebNN context on Linux.
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--enable-unsafe-webgpu',
      '--enable-features=WebMachineLearningNeuralNetwork',
    ],
  },
});

test('the page has a software WebGPU adapter here; Auto calibrates the sample on WASM, says why, and reaches the report', async ({
  page,
}, info) => {
  test.setTimeout(240_000);
  await openStudio(page);
  expect(
    await page.evaluate(async () => {
      const a = await (
        navigator as unknown as {
          gpu?: { requestAdapter(): Promise<{ info?: { vendor: string; architecture: string } } | null> };
        }
      ).gpu?.requestAdapter();
      return a?.info ? `${a.info.vendor} ${a.info.architecture}` : null;
    }),
  ).toMatch(/swiftshader/);
  const started = Date.now();
  await page.getByTestId('quantize-sample-button').click();
  await expect(page.getByTestId('sample-run')).toHaveAttribute('data-status', 'done', { timeout: 220_000 });
  const seconds = (Date.now() - started) / 1000;
  console.log(`sample with a software WebGPU adapter present: click to report ${seconds.toFixed(1)} s`);
  info.annotations.push({ type: 'click-to-report', description: `${seconds.toFixed(1)} s` });
  await expect(page.getByTestId('eval-result')).toBeVisible();
  await expect(page.getByTestId('calibration-backend-why')).toContainText(
    /google swiftshader.*(fallback|software).*slower than WASM/,
  );
  await expect(page.getByTestId('calibration-result')).toContainText('WebAssembly');
  await expect(page.getByTestId('runtime-auto')).toHaveAttribute('aria-checked', 'true');
  await page.getByTestId('calibrate-card').screenshot({ path: info.outputPath('calibrate-card.png') });
  await page.setViewportSize({ width: 900, height: 900 });
  await page.getByTestId('calibrate-card').screenshot({ path: info.outputPath('calibrate-card-900.png') });
});

test('forced on, WebGPU calibrates (packed outputs) to the WASM ranges within float rounding; the switch is kept', async ({
  page,
}, info) => {
  test.setTimeout(240_000);
  await openWithModel(page, 'ultraface-rfb-320.onnx');
  await dropFiles(
    page.getByTestId('calibration-drop'),
    ['astronaut.png', 'chelsea.png'].map((n) => imageFromFixture(`photos/${n}`)),
  );
  await expect(page.getByTestId('calibration-summary')).toHaveText('2 images');
  await page.getByTestId('preprocess-preset').selectOption('ultraface');
  // MinMax: ranges as computed, not rounded to powers of two (which would hide differences).
  await page.getByTestId('quant-preset').selectOption('U8S8');

  await page.getByTestId('runtime-wasm').click();
  let t0 = Date.now();
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 120_000 });
  const wasmSeconds = (Date.now() - t0) / 1000;
  await expect(page.getByTestId('calibration-result')).toContainText('WebAssembly');
  await expect(page.getByTestId('calibration-backend-why')).toContainText('the runtime switch says WASM');
  const wasm = (await downloadedRanges(page, info.outputPath('wasm-ranges.json'))).ranges;

  await page.getByTestId('runtime-webgpu').click();
  await expect(page.getByTestId('runtime-webgpu')).toHaveAttribute('aria-checked', 'true');
  t0 = Date.now();
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toContainText('WebGPU (google swiftshader)', {
    timeout: 200_000,
  });
  const gpuSeconds = (Date.now() - t0) / 1000;
  console.log(
    `UltraFace, 2 photos: calibration WASM ${wasmSeconds.toFixed(1)} s, WebGPU (software adapter) ${gpuSeconds.toFixed(1)} s`,
  );
  await expect(page.getByTestId('calibration-backend-why')).toContainText('the runtime switch says WebGPU');
  const gpu = (await downloadedRanges(page, info.outputPath('webgpu-ranges.json'))).ranges;

  expect(Object.keys(gpu).sort()).toEqual(Object.keys(wasm).sort());
  const { off, largest } = rangesOff(gpu, wasm, 1e-4);
  console.log(
    `largest range difference, relative to the tensor's scale: ${largest.toExponential(2)} over ${Object.keys(wasm).length} tensors`,
  );
  expect(off, 'tensors whose WebGPU range differs from WASM by more than 1e-4 of their scale').toEqual([]);

  await page.reload();
  await expect(page.getByTestId('runtime-webgpu')).toHaveAttribute('aria-checked', 'true');
});

test('parity: mnist and its U8S8 quantization on WASM, WebGPU and the JSEP build; the JSEP int8 DequantizeLinear case is flagged and located', async ({
  page,
}, info) => {
  test.setTimeout(300_000);
  await openWithModel(page, 'mnist.onnx');
  await dropFiles(
    page.getByTestId('calibration-drop'),
    ['face.png', 'astronaut.png'].map((n) => imageFromFixture(`photos/${n}`)),
  );
  await expect(page.getByTestId('calibration-summary')).toHaveText('2 images');
  await page.getByTestId('preprocess-preset').selectOption('unit');
  await page.getByTestId('quant-preset').selectOption('U8S8');
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('quantize-button').click();
  await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 60_000 });

  const card = page.getByTestId('parity-card');
  await card.getByTestId('parity-button').click();
  await expect(card).toHaveAttribute('data-parity-status', 'done', { timeout: 240_000 });
  const table = card.getByTestId('parity-table');
  for (const runtime of ['wasm', 'webgpu', 'webgpu-jsep']) {
    for (const model of ['float', 'quantized'])
      await expect(table.getByTestId(`parity-row-${runtime}-${model}`)).toBeVisible();
  }
  // With the flag, navigator.ml is there, but no context: WebNN is listed with the browser's own reason, no row.
  await expect(card).toContainText(
    /WebNN: this browser exposes WebNN \(navigator\.ml\) but cannot make a context here: (Failed to execute 'createContext' on 'ML': )?WebNN is not supported on this platform\.$/,
  );
  await expect(table.locator('tr[data-testid^="parity-row-webnn"]')).toHaveCount(0);
  const rows = await table
    .locator('tbody tr')
    .evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '').join(' | ')),
    );
  console.log(rows.join('\n'));
  fs.writeFileSync(info.outputPath('parity.txt'), rows.join('\n'));
  await card.screenshot({ path: info.outputPath('parity-card.png') });
  // The reference and the native WebGPU backend agree with WASM on both models; float on every runtime.
  await expect(table.getByTestId('parity-row-wasm-float')).toHaveAttribute('data-flagged', 'false');
  await expect(table.getByTestId('parity-row-webgpu-float')).toHaveAttribute('data-flagged', 'false');
  await expect(table.getByTestId('parity-row-webgpu-quantized')).toHaveAttribute('data-flagged', 'false');
  await expect(table.getByTestId('parity-row-webgpu-jsep-float')).toHaveAttribute('data-flagged', 'false');
  // JSEP's int8 DequantizeLinear (onnxruntime #32578): flagged, and located at a DequantizeLinear.
  const jsep = table.getByTestId('parity-row-webgpu-jsep-quantized');
  await expect(jsep).toHaveAttribute('data-flagged', 'true');
  await expect(card.getByTestId('parity-flag')).toContainText('JSEP');
  await expect(jsep.getByTestId('parity-parting')).toContainText('DequantizeLinear');
  await jsep.getByTestId('parity-show-node').click();
  await expect(page.getByTestId('node-inspector')).not.toHaveClass(/inspector--empty/);
  await page.getByTestId('node-inspector').screenshot({ path: info.outputPath('parity-node.png') });
  await page.setViewportSize({ width: 900, height: 900 });
  await card.screenshot({ path: info.outputPath('parity-card-900.png') });

  // In the report too: evaluated on the same quantized model, the downloaded report carries the table.
  await page.getByTestId('evaluate-button').click();
  await expect(page.getByTestId('eval-result')).toBeVisible({ timeout: 90_000 });
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-eval-html').click()]);
  const html = fs.readFileSync((await download.path())!, 'utf8');
  expect(html).toContain('<h2>Parity across runtimes</h2>');
  expect(html).toMatch(/WebGPU, JSEP build[^<]*\(quantized\)/);
  expect(html).toContain('(DequantizeLinear, tensor');
});
