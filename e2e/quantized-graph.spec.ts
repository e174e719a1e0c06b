/**
 * A QDQ model read as quantized, in a real Chromium: UltraFace quantized by the studio's core (U8S8, per-channel
 * weights) in Node, dropped on the page; its Q/DQ are folded, a Conv's quantized input shows the type, scale and
 * zero point the file holds, its weight the integer codes and the 16 channel scales; precision colouring works on
 * the file; a toggle shows the Q/DQ as nodes. Then the same for UltraFace written the way ONNX Runtime's
 * quantize_static writes it (its names, unnamed nodes, int32 biases; tests/helpers/foreignQdq.ts), and that file
 * beside the float model in the split view.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clickGraphNode, dropFiles, expect, expectSummaryOf, fileFromFixture, openStudio, test } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Expected {
  node: string;
  output: string;
  tensor: string;
  type: string;
  scale: number;
  zeroPoint: number;
  weightType: string;
  weightChannels: number;
}

/** The fixture quantized by the core and written to `out`; what the file says of one quantized Conv. */
function quantize(fixture: string, out: string, mode: 'per-channel' | 'ort' = 'per-channel'): Expected {
  const args = ['--import', 'tsx', path.join(ROOT, 'e2e/builders/quantizedModel.ts'), fixture, out, mode];
  return JSON.parse(execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!);
}

/** A scale as the page writes it: 4 significant digits (exponent form below 1e-3). */
const plain = (v: number) => (Math.abs(v) < 1e-3 && v !== 0 ? v.toExponential(3) : String(Number(v.toPrecision(4))));

test.describe('a quantized model read as quantized', () => {
  test("UltraFace U8S8: a Q/DQ edge's type, scale and zero point on screen, as the file holds them", async ({
    page,
  }, info) => {
    test.setTimeout(120_000);
    const file = path.join(os.tmpdir(), `qs-quantized-graph-${process.pid}.onnx`);
    const expected = quantize('ultraface-rfb-320.onnx', file);
    await page.setViewportSize({ width: 1440, height: 900 });
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), {
      name: 'ultraface-u8s8.onnx',
      mimeType: 'application/octet-stream',
      buffer: fs.readFileSync(file),
    });
    fs.rmSync(file, { force: true });
    await expectSummaryOf(page, 'ultraface-u8s8.onnx');
    const workspace = page.getByTestId('graph-workspace');
    await expect(workspace).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });
    const foldedBoxes = await page.evaluate(() => window.__qsGraph!.boxes);

    await clickGraphNode(page, expected.node);
    const inspector = page.getByTestId('node-inspector');
    const quant = inspector.getByTestId('inspector-quant').first();
    await expect(quant).toHaveText(`${expected.type} · scale ${plain(expected.scale)} · zp ${expected.zeroPoint}`);
    await expect(quant).toHaveAttribute('data-scale', String(expected.scale));
    await expect(quant).toHaveAttribute('data-zero-point', String(expected.zeroPoint));
    // The weight: its codes and the per-channel scales that map them to float.
    const weight = inspector.getByTestId('inspector-weight-quant').first();
    await expect(weight).toContainText(
      `${expected.weightType} · ${expected.weightChannels} channels (axis 0) · scale `,
    );
    await expect(weight.getByTestId('scale-chart')).toHaveAttribute('data-channels', String(expected.weightChannels));
    await expect(inspector.getByTestId('inspector-codes').first()).toContainText(`${expected.weightType} codes: min `);
    await page.getByTestId('graph-canvas').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('quantized-1440.png') });

    // Precision colouring works on the file itself.
    const byPrecision = page.getByTestId('colour-by-precision');
    await expect(byPrecision).toBeEnabled();
    await byPrecision.check();
    await expect(page.getByTestId('precision-legend-int8')).toBeVisible();
    await expect(page.getByTestId('qdq-layers')).toContainText('Quantized layers');

    // The bit widths export as Model Explorer node data, keyed by output tensor.
    await page.getByTestId('node-data-pick').selectOption('bits');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('node-data-save').click()]);
    expect(download.suggestedFilename()).toBe('ultraface-u8s8.bit-width.node-data.json');
    const nodeData = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
    const graph = Object.values(nodeData)[0] as {
      results: Record<string, { value: number }>;
      gradient: { stop: number }[];
    };
    expect(graph.results[expected.output]).toEqual({ value: 8 });
    expect(graph.gradient.map((g) => g.stop)).toEqual([0, 0.5, 1]);

    // Q/DQ as nodes: more boxes, the Q/DQ among them.
    await page.getByTestId('graph-show-qdq').check();
    await expect
      .poll(() => page.evaluate(() => window.__qsGraph?.boxes ?? 0), { timeout: 30_000 })
      .toBeGreaterThan(foldedBoxes);
    await page.setViewportSize({ width: 900, height: 900 });
    await page.getByTestId('graph-show-qdq').uncheck();
    await expect.poll(() => page.evaluate(() => window.__qsGraph?.boxes ?? 0), { timeout: 30_000 }).toBe(foldedBoxes);
    await clickGraphNode(page, expected.node);
    await page.getByTestId('graph-canvas').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('quantized-900.png') });
  });

  test("UltraFace as ONNX Runtime's quantize_static writes it: read as quantized, and mapped against the float model", async ({
    page,
  }, info) => {
    test.setTimeout(150_000);
    const file = path.join(os.tmpdir(), `qs-ort-style-${process.pid}.onnx`);
    const expected = quantize('ultraface-rfb-320.onnx', file, 'ort');
    const ortFile = {
      name: 'ultraface-ort-qdq.onnx',
      mimeType: 'application/octet-stream',
      buffer: fs.readFileSync(file),
    };
    fs.rmSync(file, { force: true });
    // The tool's own names: the Conv reads `<tensor>_DequantizeLinear_Output`.
    expect(expected.tensor).toMatch(/_DequantizeLinear_Output$/);
    await page.setViewportSize({ width: 1440, height: 900 });
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), ortFile);
    await expectSummaryOf(page, ortFile.name);
    await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });

    await clickGraphNode(page, expected.node);
    const inspector = page.getByTestId('node-inspector');
    await expect(inspector.getByTestId('inspector-quant').first()).toHaveText(
      `${expected.type} · scale ${plain(expected.scale)} · zp ${expected.zeroPoint}`,
    );
    const weight = inspector.getByTestId('inspector-weight-quant').first();
    await expect(weight).toContainText(
      `${expected.weightType} · ${expected.weightChannels} channels (axis 0) · scale `,
    );
    await expect(weight.getByTestId('scale-chart')).toHaveAttribute('data-channels', String(expected.weightChannels));
    await expect(inspector.getByTestId('inspector-codes').first()).toContainText(`${expected.weightType} codes: min `);
    const byPrecision = page.getByTestId('colour-by-precision');
    await expect(byPrecision).toBeEnabled();
    await byPrecision.check();
    await expect(page.getByTestId('graph-precision-legend')).toBeVisible();
    await expect(page.getByTestId('qdq-layers')).toContainText('Quantized layers');
    await page.getByTestId('graph-canvas').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('ort-style-1440.png') });

    // Beside the float model: related, the 35 BatchNormalization folded in, nothing only on the quantized side; a
    // Conv picked on the float side selects a Conv on the other.
    await dropFiles(page.getByTestId('compare-drop'), [fileFromFixture('ultraface-rfb-320.onnx'), ortFile]);
    const view = page.getByTestId('compare-view');
    await expect(view).toHaveAttribute('data-compare-drawn', 'true', { timeout: 60_000 });
    await expect(view).toHaveAttribute('data-related', 'true');
    await expect(page.getByTestId('compare-counts')).toContainText('35 folded in');
    await expect(page.getByTestId('compare-counts')).toContainText(`0 only in ${ortFile.name}`);
    await page.getByTestId('compare-canvas-a').scrollIntoViewIfNeeded();
    await page.evaluate(() => window.__qsCompare!.focus('a', 'Conv_3'));
    await page.waitForFunction(() => window.__qsCompare?.idle('a') && window.__qsCompare?.idle('b'));
    const at = (await page.evaluate(() => window.__qsCompare!.position('a', 'Conv_3')))!;
    await page.mouse.click(at.x, at.y);
    await expect(page.getByTestId('compare-selected-a')).toHaveAttribute('data-node-id', 'Conv_3');
    await expect(page.getByTestId('compare-selected-b')).toContainText('(Conv)');
    const counterpart = await page.evaluate(() => window.__qsCompare!.counterpart('a', 'Conv_3'));
    await expect(page.getByTestId('compare-selected-b')).toHaveAttribute('data-node-id', counterpart!);
    await page.screenshot({ path: info.outputPath('ort-style-compare-1440.png') });
    await page.setViewportSize({ width: 900, height: 900 });
    await page.getByTestId('compare-canvas-a').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('ort-style-compare-900.png') });
  });
  test('a large quantized file opened alone: folded and laid out in the model worker, its phases on a progress bar', async ({
    page,
  }, info) => {
    test.setTimeout(180_000);
    // The synthetic exporter-like graph of 2,000 nodes and its U8S8 quantization by the core (about 6,700 nodes):
    // above the size the page lays out itself, so the graph takes the worker's path.
    const float = info.outputPath('synthetic-2000.onnx');
    const quantized = info.outputPath('synthetic-2000.quant.onnx');
    const args = [
      '--import',
      'tsx',
      path.join(ROOT, 'bench/cases/writeQuantizedSynthetic.ts'),
      float,
      quantized,
      '2000',
    ];
    const { nodes } = JSON.parse(execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' }).trim());
    await page.setViewportSize({ width: 1440, height: 900 });
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), {
      name: 'synthetic-2000.quant.onnx',
      mimeType: 'application/octet-stream',
      buffer: fs.readFileSync(quantized),
    });
    await expectSummaryOf(page, 'synthetic-2000.quant.onnx');
    await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 120_000 });
    // The progress bar showed the worker's phases: the fold, then the layout.
    const phases = (await page.evaluate(
      `performance.getEntriesByName('graph:phase').map((m) => m.detail)`,
    )) as string[];
    expect(phases[0]).toBe('folding Q/DQ onto edges');
    expect(phases.some((p) => /^laying out [\d,]+ boxes: /.test(p))).toBe(true);
    // Folded: a box per float node (and the graph's input and output), not one per Q/DQ.
    const boxes = await page.evaluate(() => window.__qsGraph!.boxes);
    expect(boxes).toBeGreaterThanOrEqual(nodes);
    expect(boxes).toBeLessThan(nodes + 10);
    // The inspector reads the fold the worker made, with the index the page built.
    const search = page.getByTestId('graph-search');
    await search.fill('Conv');
    await search.press('Enter');
    const inspector = page.getByTestId('node-inspector');
    await expect(inspector.getByTestId('inspector-quant').first()).toContainText(/^u?int8 · scale /);
    await page.getByTestId('graph-canvas').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('quantized-synthetic-1440.png') });
    await page.setViewportSize({ width: 900, height: 900 });
    await page.getByTestId('graph-canvas').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('quantized-synthetic-900.png') });
  });
});
