/**
 * A float16 source model in a real Chromium, as the guide's "INT8 Quantization for FP16 Models" runs it:
 * a float16 UltraFace made in code (e2e/builders/float16Model.ts), the FP16 options in the settings
 * (QuantizeFP16 on by default, UseFP32Scale switched on by keyboard), a subgraph picked on the graph with
 * the same start/end picking as exclusions but added to the other list (Convert to FP32), then calibrate,
 * quantize, evaluate in onnxruntime-web, run the download in onnxruntime-node; the exported config and the
 * Quark script carry both steps, and importing the config restores the list.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  calibrateAndQuantize,
  clickGraphNode,
  dropFiles,
  expect,
  expectSummaryOf,
  imageFromFixture,
  openStudio,
  test,
} from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const CALIBRATION = ['face.png', 'grace_hopper.jpg', 'astronaut.png', 'chelsea.png'].map((n) =>
  imageFromFixture(`photos/${n}`),
);
const pythonParses = (source: string) =>
  execFileSync('/usr/bin/python3', ['-c', 'import ast,sys; ast.parse(sys.stdin.read())'], {
    input: source,
    encoding: 'utf8',
  });

test('float16 UltraFace: FP16 options, a subgraph picked to FP32, quantized; runs in onnxruntime-web and -node; config and script carry both steps', async ({
  page,
}, info) => {
  test.setTimeout(240_000);
  const modelPath = info.outputPath('ultraface-fp16.onnx');
  execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'e2e/builders/float16Model.ts'), 'ultraface-rfb-320.onnx', modelPath],
    { cwd: ROOT, encoding: 'utf8' },
  );

  await openStudio(page);
  await dropFiles(page.getByTestId('drop-zone'), {
    name: 'ultraface-fp16.onnx',
    mimeType: 'application/octet-stream',
    buffer: fs.readFileSync(modelPath),
  });
  await expectSummaryOf(page, 'ultraface-fp16.onnx');

  // The FP16 options: QuantizeFP16 on by default, UseFP32Scale switched on by keyboard.
  await expect(page.getByTestId('fp16-options')).toBeVisible();
  await expect(page.getByTestId('fp16-quantize')).toBeChecked();
  await expect(page.getByTestId('fp16-convert-all')).not.toBeChecked();
  const fp32Scale = page.getByTestId('fp16-fp32-scale');
  await expect(fp32Scale).not.toBeChecked();
  await fp32Scale.focus();
  await page.keyboard.press('Space');
  await expect(fp32Scale).toBeChecked();

  // The empty state, then a subgraph picked on the graph like an exclusion, into the other list.
  await expect(page.getByTestId('fp32-empty')).toBeVisible();
  await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });
  await page.getByTestId('pick-mode-start').click();
  await clickGraphNode(page, 'Conv_0');
  await page.getByTestId('pick-mode-end').click();
  await clickGraphNode(page, 'Relu_5');
  await expect(page.getByTestId('pick-preview')).toHaveAttribute('data-count', '6');
  await page.getByTestId('add-fp32-subgraph').focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('pick-added')).toContainText('Convert to FP32 list');
  await expect(page.getByTestId('fp32-count')).toHaveText('1');
  await expect(page.getByTestId('exclusion-count')).toHaveText('0');
  const entry = page.getByTestId('fp32-list').getByTestId('exclusion-entry');
  await expect(entry).toHaveAttribute('data-node-count', '6');
  await page.getByTestId('exclusion-panel').screenshot({ path: info.outputPath('fp32-list.png') });

  await calibrateAndQuantize(page, CALIBRATION, 'ultraface', 'XINT8');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
  const quantPath = info.outputPath('ultraface-fp16.quant.onnx');
  await download.saveAs(quantPath);

  // onnxruntime-web: the evaluation worker runs the float16 source and its quantization.
  await page.getByTestId('eval-layers-toggle').uncheck();
  await page.getByTestId('evaluate-button').click();
  await expect(page.getByTestId('eval-result')).toBeVisible({ timeout: 90_000 });
  expect(Number(await page.getByTestId('eval-mean-cosine').textContent())).toBeGreaterThan(0.95);

  // onnxruntime-node: the written model keeps the float16 interface, converts the picked stem to float32.
  const check = execFileSync(
    process.execPath,
    [
      '-e',
      `
    const ort = require('onnxruntime-node');
    ort.InferenceSession.create(${JSON.stringify(quantPath)}).then(async (s) => {
      const x = new ort.Tensor('float16', new Uint16Array(3 * 240 * 320).fill(0x2e66), [1, 3, 240, 320]);
      const out = await s.run({ [s.inputNames[0]]: x });
      console.log(JSON.stringify(Object.values(out).map((t) => t.type)));
    });`,
    ],
    { cwd: ROOT, encoding: 'utf8' },
  );
  expect(JSON.parse(check.trim())).toEqual(['float16', 'float16']);

  // The config carries the FP16→FP32 list and the FP16 options; the Quark script reproduces both steps.
  const panel = page.getByTestId('exclusion-panel');
  const [config] = await Promise.all([page.waitForEvent('download'), panel.getByTestId('export-config').click()]);
  const configPath = info.outputPath('ultraface-fp16.qstudio.json');
  await config.saveAs(configPath);
  const json = JSON.parse(fs.readFileSync(configPath, 'utf8'));
  expect(json.fp16SubgraphsToFp32).toEqual([{ starts: ['Conv_0'], ends: ['Relu_5'] }]);
  expect(json.subgraphsToExclude).toEqual([]);
  expect(json.extraOptions).toMatchObject({ QuantizeFP16: true, UseFP32Scale: true, ConvertFP16ToFP32: false });
  await panel.getByTestId('export-quark').click();
  const quark = (await panel.getByTestId('snippet-code').textContent())!;
  expect(quark).toContain('FP16_SUBGRAPHS_TO_FP32 = [[["Conv_0"], ["Relu_5"]]]');
  expect(quark).toContain('"subgraphs_to_include": FP16_SUBGRAPHS_TO_FP32');
  expect(quark).toContain('"UseFP32Scale": True');
  expect(() => pythonParses(quark)).not.toThrow();

  // Removing the entry by keyboard empties the list; importing the config brings it back.
  await entry.focus();
  await page.keyboard.press('Delete');
  await expect(page.getByTestId('fp32-empty')).toBeVisible();
  await panel.getByTestId('import-config-input').setInputFiles(configPath);
  await expect(page.getByTestId('fp32-count')).toHaveText('1');
  await expect(page.getByTestId('fp16-fp32-scale')).toBeChecked();
});
