/**
 * Automatic mixed precision in a real Chromium, seen as the user sees it: mnist with three photos, the
 * recovery card's mixed-precision switch with a budget and an aim the 8-bit model misses, so the search
 * (onnxruntime-web, the recovery worker) really moves tensors to 16 bits. The chosen model is adopted; then
 * the graph coloured by precision (switched with the keyboard), the layer table's precision column, the
 * report, the written model's 16-bit Q/DQ, the exported config (TensorQuantOverrides, and the rung's transformer
 * rules: the adopted model's own configuration), the Quark and ORT snippets, and importing the config back all
 * name the same tensors and nodes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';
import { PRECISION_COLOURS } from '../src/ui/features/graph/precisionColours.ts';
import type { PrecisionClass } from '../src/core/quantize/precisionClasses.ts';
import { dropFiles, expect, imageFromFixture, openWithModel, test } from './support.ts';
import type { Page } from '@playwright/test';

const PHOTOS = ['face.png', 'grace_hopper.jpg', 'astronaut.png'].map((n) => imageFromFixture(`photos/${n}`));

/** Element type of every initializer of a model file, read by Debian's python3-onnx. */
function initializerTypes(file: string): Map<string, number> {
  const script =
    'import json,sys,onnx; m=onnx.load(sys.argv[1]); print(json.dumps({t.name: t.data_type for t in m.graph.initializer}))';
  return new Map(
    Object.entries(
      JSON.parse(execFileSync('/usr/bin/python3', ['-c', script, file], { encoding: 'utf8' })) as Record<
        string,
        number
      >,
    ),
  );
}

async function download(page: Page, testId: string): Promise<{ name: string; bytes: Buffer }> {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return { name: d.suggestedFilename(), bytes: fs.readFileSync((await d.path())!) };
}

test('mnist: the mixed-precision search puts tensors at 16 bits; graph, layer table, report, model, config and snippets agree', async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  await openWithModel(page, 'mnist.onnx');
  await dropFiles(page.getByTestId('calibration-drop'), PHOTOS);
  await expect(page.getByTestId('calibration-summary')).toHaveText('3 images');
  await page.getByTestId('preprocess-preset').selectOption('unit');
  await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });
  // Nothing quantized yet: there is no precision to colour by.
  await expect(page.getByTestId('colour-by-precision')).toBeDisabled();

  // Mixed precision on, with the keyboard; a budget that leaves room and an aim 8 bits miss (0.998 here).
  const card = page.getByTestId('recover-card');
  await card.getByTestId('recover-mixed').focus();
  await page.keyboard.press('Space');
  await expect(card.getByTestId('recover-mixed')).toBeChecked();
  await card.getByTestId('budget-act16').fill('30');
  await card.getByTestId('budget-w16').fill('50');
  await card.getByTestId('budget-float').fill('10');
  await card.getByTestId('mixed-target').fill('0.99999');
  // The transformer rules ride along (mnist has no attention block, so they change no Q/DQ): the adopted model's
  // configuration carries them, and so must the exported config and the scripts.
  await card.getByTestId('recover-attention').check();
  await card.getByTestId('recover-finetune').selectOption('none');
  await card.getByTestId('recover-button').click();
  await expect(card).toHaveAttribute('data-recover-status', 'done', { timeout: 90_000 });
  const mixed = card.getByTestId('rung-mixed');
  await expect(mixed).toBeVisible();
  const used = (await mixed.textContent())!.match(/16-bit activations (\d+) of (\d+) allowed/)!;
  expect(Number(used[1])).toBeGreaterThan(0);
  expect(Number(used[1])).toBeLessThanOrEqual(Number(used[2]));
  await expect(card.getByTestId('rung-row')).toHaveAttribute('data-rung-label', /mixed precision/);

  await card.getByTestId('rung-use').click();
  await expect(card.getByTestId('rung-adopted')).toBeVisible();
  // The choice is the page's settings now: its 16-bit tensors listed with the preset.
  const overrides = page.getByTestId('tensor-overrides');
  await expect(overrides).toBeVisible();
  const overrideCount = Number(await overrides.getAttribute('data-count'));
  expect(overrideCount).toBeGreaterThan(0);

  // The graph coloured by precision, switched with the keyboard ("p") and back by the radio.
  await card.getByTestId('rung-use').focus();
  await page.keyboard.press('p');
  await expect(page.getByTestId('colour-by-precision')).toBeChecked();
  const legend = page.getByTestId('graph-precision-legend');
  await expect(legend).toBeVisible();
  await expect(legend.getByTestId('precision-legend-act16')).toBeVisible();
  const legendAct16 = Number(await legend.getByTestId('precision-legend-act16').getAttribute('data-count'));
  expect(legendAct16).toBeGreaterThan(0);

  // Evaluate: the layer table names each node's precision, and the graph draws that node in that precision's colour.
  await page.getByTestId('evaluate-button').click();
  await expect(page.getByTestId('eval-result')).toBeVisible({ timeout: 90_000 });
  await page.getByTestId('colour-by-precision').check(); // the evaluation's heat map took the colours back
  const cells = await page.getByTestId('eval-layer-row').evaluateAll((rows) =>
    rows.map((r) => ({
      node: r.querySelector('.tensor-table__name button')?.textContent ?? null,
      precision: r.querySelector('[data-testid="eval-layer-precision"]')?.getAttribute('data-precision') ?? null,
    })),
  );
  const classified = cells.filter(
    (c): c is { node: string; precision: PrecisionClass } => c.node !== null && c.precision !== null,
  );
  expect(classified.some((c) => c.precision === 'act16')).toBe(true);
  for (const c of classified) {
    expect(await page.evaluate((id) => window.__qsGraph!.fillOf(id), c.node)).toBe(PRECISION_COLOURS[c.precision]);
  }
  // Pictures for a person to look at (test-results/): the graph by precision, the layer table, the recovery card.
  await page.getByTestId('graph-workspace').screenshot({ path: info.outputPath('graph-by-precision.png') });
  await page.getByTestId('eval-layers').screenshot({ path: info.outputPath('layer-table.png') });
  await card.screenshot({ path: info.outputPath('recover-card.png') });
  await page.getByTestId('colour-by-family').check();
  await expect(legend).toHaveCount(0);

  // The report names the same precisions.
  const html = (await download(page, 'download-eval-html')).bytes.toString('utf8');
  expect(html).toContain('Precision per node');
  expect(html).toContain('16-bit activation');
  const act16Nodes = classified.filter((c) => c.precision === 'act16').map((c) => c.node);
  for (const node of act16Nodes) expect(html).toContain(node);

  // The written model quantizes exactly the overridden tensors to 16 bits.
  const written = (await download(page, 'recover-download')).bytes;
  const modelPath = info.outputPath('mnist.quant.onnx');
  fs.writeFileSync(modelPath, written);
  const types = initializerTypes(modelPath);
  const session = await ort.InferenceSession.create(written);
  await session.release();

  // The exported config carries them as TensorQuantOverrides (and any node the search kept float).
  const panel = page.getByTestId('exclusion-panel');
  const configPath = info.outputPath('mnist.qstudio.json');
  const [configDownload] = await Promise.all([
    page.waitForEvent('download'),
    panel.getByTestId('export-config').click(),
  ]);
  await configDownload.saveAs(configPath);
  const json = JSON.parse(fs.readFileSync(configPath, 'utf8'));
  expect(json.enableNpuTransformer).toBe(true);
  const tensors = Object.keys(json.extraOptions.TensorQuantOverrides);
  expect(tensors).toHaveLength(overrideCount);
  for (const t of tensors) {
    expect(json.extraOptions.TensorQuantOverrides[t]).toEqual([{ quant_type: expect.stringMatching(/^u?int16$/) }]);
    // int16 (5) or uint16 (4): an activation's zero point, or a weight's codes.
    expect([4, 5]).toContain(types.get(`${t}_zero_point`) ?? types.get(`${t}_quantized`));
  }

  // Both snippets write the same overrides.
  await panel.getByTestId('export-ort').click();
  const code = panel.getByTestId('snippet-code');
  await expect(code).toContainText('TensorQuantOverrides');
  const ortCode = (await code.textContent())!;
  for (const t of tensors) expect(ortCode).toContain(`"${t}"`);
  expect(ortCode).toMatch(/QuantType\.QU?Int16/);
  await panel.getByTestId('export-quark').click();
  await expect(panel.getByTestId('snippet-dialog')).toHaveAttribute('data-snippet-kind', 'quark');
  const quarkCode = (await code.textContent())!;
  expect(quarkCode).toContain('TensorQuantOverrides');
  expect(quarkCode).toContain('enable_npu_transformer');
  for (const t of tensors) expect(quarkCode).toContain(`"${t}"`);
  await page.keyboard.press('Escape');

  // Cleared, then brought back by importing the config.
  await page.getByTestId('tensor-overrides-clear').click();
  await expect(overrides).toHaveCount(0);
  await card.getByTestId('recover-attention').uncheck();
  await panel.getByTestId('import-config-input').setInputFiles(configPath);
  await expect(page.getByTestId('tensor-overrides')).toHaveAttribute('data-count', String(overrideCount));
  await expect(card.getByTestId('recover-attention')).toBeChecked(); // the file's recovery steps, on the recovery card
});
