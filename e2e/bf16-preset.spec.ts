/**
 * The BF16 preset in a real Chromium: picked by keyboard beside the integer presets, it writes Quark's
 * with-cast BF16 model with no calibration at all, which downloads, runs in onnxruntime-web (the evaluation
 * worker judges it on held-out photos) and in onnxruntime-node; the exported config and Quark script say
 * BF16 with BF16QDQToCast, the ONNX Runtime script is refused by name, and importing the config brings BF16 back.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dropFiles, expect, imageFromFixture, openWithModel, test } from './support.ts';

const HELD_OUT = ['camera.png', 'coffee.png'].map((n) => imageFromFixture(`photos/${n}`));
const pythonParses = (source: string) =>
  execFileSync('/usr/bin/python3', ['-c', 'import ast,sys; ast.parse(sys.stdin.read())'], {
    input: source,
    encoding: 'utf8',
  });

test('BF16 with-cast: no calibration, the model runs in onnxruntime-web and -node, the config and Quark script reproduce it', async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  await openWithModel(page, 'ultraface-rfb-320.onnx');
  await page.getByTestId('preprocess-preset').selectOption('ultraface');

  // Keyboard: focus the preset list and pick BF16 (the last option).
  const preset = page.getByTestId('quant-preset');
  await preset.focus();
  await page.keyboard.press('End');
  await expect(preset).toHaveValue('BF16');
  await expect(page.getByTestId('quant-preset-summary')).toContainText('BF16QDQToCast');
  await expect(page.getByTestId('bf16-note')).toContainText('Calibration is optional');
  await expect(page.getByTestId('per-channel')).toBeDisabled();
  await expect(page.getByTestId('saturation-safe')).toBeDisabled();

  // No images, no calibration: Quantize is ready.
  const button = page.getByTestId('quantize-button');
  await expect(button).toBeEnabled();
  await expect(button).toHaveText('Quantize with BF16');
  await button.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('report-float')).toHaveText('0');
  const casts = Number(await page.getByTestId('report-qdq').textContent());
  expect(casts).toBeGreaterThan(50);
  await page.getByTestId('quantize-result').screenshot({ path: info.outputPath('bf16-result.png') });

  const [model] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
  expect(model.suggestedFilename()).toBe('ultraface-rfb-320.bf16.onnx');
  const modelPath = info.outputPath('ultraface-rfb-320.bf16.onnx');
  await model.saveAs(modelPath);

  // onnxruntime-web: the evaluation worker runs it against the float model on held-out photos.
  await dropFiles(page.getByTestId('eval-drop'), HELD_OUT);
  await page.getByTestId('eval-layers-toggle').uncheck();
  await page.getByTestId('evaluate-button').click();
  await expect(page.getByTestId('eval-result')).toBeVisible({ timeout: 90_000 });
  const cosine = Number(await page.getByTestId('eval-mean-cosine').textContent());
  expect(cosine).toBeGreaterThan(0.999); // BF16 keeps 8 significant bits everywhere: close, not exact
  expect(cosine).toBeLessThan(1);

  // onnxruntime-node loads and runs it too, and onnx.checker passes it.
  const repo = path.resolve(import.meta.dirname, '..');
  const run = execFileSync(
    'node',
    [
      '-e',
      `
    const ort = require('onnxruntime-node');
    ort.InferenceSession.create(${JSON.stringify(modelPath)}).then(async (s) => {
      const out = await s.run({ [s.inputNames[0]]: new ort.Tensor('float32', new Float32Array(3 * 240 * 320).fill(0.1), [1, 3, 240, 320]) });
      console.log(Object.values(out).every((t) => Array.from(t.data).every(Number.isFinite)) ? 'ok' : 'nan');
    });`,
    ],
    { cwd: repo, encoding: 'utf8' },
  );
  expect(run.trim()).toBe('ok');
  const checked = JSON.parse(
    execFileSync('/usr/bin/python3', [path.join(repo, 'scripts/check_onnx.py'), modelPath], { encoding: 'utf8' }),
  );
  expect(checked).toMatchObject({ ok: true });

  // The config says BF16 (what `qstudio quantize --config` takes), the Quark script too; ORT has no BF16.
  const panel = page.getByTestId('exclusion-panel');
  const [config] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('export-config').click()]);
  const configPath = info.outputPath('ultraface-rfb-320.qstudio.json');
  await config.saveAs(configPath);
  const json = JSON.parse(fs.readFileSync(configPath, 'utf8'));
  expect(json).toMatchObject({
    preset: 'BF16',
    extraOptions: { BF16QDQToCast: true },
    studio: { settings: { preset: 'BF16' } },
  });
  await panel.getByTestId('export-quark').click();
  const quark = (await panel.getByTestId('snippet-code').textContent())!;
  expect(quark).toContain('QConfig.get_default_config("BF16")');
  expect(quark).toContain('extra_options["BF16QDQToCast"] = True');
  expect(() => pythonParses(quark)).not.toThrow();
  await panel.getByTestId('export-ort').click();
  await expect(panel.getByTestId('export-error')).toHaveAttribute('data-error-name', 'NoOrtBf16Error');

  // Back to XINT8, then the file brings BF16 back.
  await preset.selectOption('XINT8');
  await expect(page.getByTestId('quantize-button')).toBeDisabled(); // XINT8 needs ranges
  await panel.getByTestId('import-config-input').setInputFiles(configPath);
  await expect(panel.getByTestId('import-note')).toBeVisible();
  await expect(preset).toHaveValue('BF16');
});
