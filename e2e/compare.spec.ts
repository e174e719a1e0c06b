/**
 * Two models side by side, in a real Chromium: float YOLOX-nano and its per-channel quantization (written by the
 * studio's core in Node: opset raised, Q/DQ inserted) dropped together on the comparison target; a Conv selected on
 * one side selects and centres its counterpart on the other, and stays centred on both when the window is resized;
 * a pan on one pane moves the other. Two unrelated
 * models give the named "No common nodes" message, with both panes drawn.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import {
  calibrateAndQuantize,
  dropFiles,
  expect,
  fileFromFixture,
  imageFromFixture,
  openWithModel,
  test,
} from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

function quantize(fixture: string, out: string): { node: string } {
  const args = ['--import', 'tsx', path.join(ROOT, 'e2e/builders/quantizedModel.ts'), fixture, out, 'per-channel'];
  return JSON.parse(execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').pop()!);
}

const centre = (page: Page, side: 'a' | 'b') => page.evaluate((s) => window.__qsCompare!.centre(s)!, side);
const restingOn = (page: Page) =>
  page.waitForFunction(() => window.__qsCompare?.idle('a') && window.__qsCompare?.idle('b'));

test.describe('models side by side', () => {
  test('float and quantized YOLOX-nano: a Conv selected on one side selects its counterpart; pans follow', async ({
    page,
  }, info) => {
    test.setTimeout(150_000);
    const file = path.join(os.tmpdir(), `qs-compare-${process.pid}.onnx`);
    const { node } = quantize('yolox-nano.onnx', file);
    const quantized = {
      name: 'yolox-nano.quant.onnx',
      mimeType: 'application/octet-stream',
      buffer: fs.readFileSync(file),
    };
    fs.rmSync(file, { force: true });
    await page.setViewportSize({ width: 1440, height: 900 });
    await openWithModel(page, 'yolox-nano.onnx');
    await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });

    await dropFiles(page.getByTestId('compare-drop'), [fileFromFixture('yolox-nano.onnx'), quantized]);
    const view = page.getByTestId('compare-view');
    await expect(view).toHaveAttribute('data-compare-drawn', 'true', { timeout: 60_000 });
    await expect(view).toHaveAttribute('data-related', 'true');
    // The summary still shows the float model: the drop opened a comparison, not a model.
    await expect(page.getByTestId('summary-file-name')).toHaveText('yolox-nano.onnx');
    await expect(page.getByTestId('compare-counts')).toContainText('0 only in yolox-nano.onnx');

    // Click the Conv on the float side; its counterpart is selected on the quantized side.
    await page.getByTestId('compare-canvas-a').scrollIntoViewIfNeeded();
    // Zoomed in on it first, as a reader would (fitted, YOLOX's boxes are 2 px wide).
    await page.evaluate((id) => window.__qsCompare!.focus('a', id), node);
    await restingOn(page);
    const at = await page.evaluate((id) => window.__qsCompare!.position('a', id), node);
    await page.mouse.click(at!.x, at!.y);
    await expect(page.getByTestId('compare-selected-a')).toHaveAttribute('data-node-id', node);
    await expect(page.getByTestId('compare-selected-b')).toHaveAttribute('data-node-id', node);
    await expect(page.getByTestId('compare-selected-b')).toContainText('(Conv)');
    expect(await page.evaluate(() => window.__qsCompare!.selected('b'))).toBe(node);
    // Both panes centre it.
    await restingOn(page);
    const [ca, cb] = [await centre(page, 'a'), await centre(page, 'b')];
    const [pa, pb] = [
      await page.evaluate((id) => window.__qsCompare!.position('a', id), node),
      await page.evaluate((id) => window.__qsCompare!.position('b', id), node),
    ];
    const boxA = (await page.getByTestId('compare-canvas-a').boundingBox())!,
      boxB = (await page.getByTestId('compare-canvas-b').boundingBox())!;
    expect(Math.abs(pa!.y - (boxA.y + boxA.height / 2))).toBeLessThan(3);
    expect(Math.abs(pb!.y - (boxB.y + boxB.height / 2))).toBeLessThan(3);
    expect(cb.zoom).toBeCloseTo(ca.zoom, 5);
    await page.screenshot({ path: info.outputPath('compare-1440.png') });

    // The window narrowed (the panes stay side by side, each narrower) and widened again: the selection stays centred
    // on both panes, at the same zoom.
    // The distance of the selection from its pane's centre, once the panes have taken their new size and rest.
    const offCentre = async (side: 'a' | 'b') => {
      await restingOn(page);
      const p = (await page.evaluate(([s, id]) => window.__qsCompare!.position(s, id), [side, node] as const))!;
      const box = (await page.getByTestId(`compare-canvas-${side}`).boundingBox())!;
      return Math.max(Math.abs(p.x - (box.x + box.width / 2)), Math.abs(p.y - (box.y + box.height / 2)));
    };
    const centred = async () => {
      for (const side of ['a', 'b'] as const)
        await expect.poll(() => offCentre(side), { message: side, timeout: 10_000 }).toBeLessThan(3);
      expect((await centre(page, 'b')).zoom).toBeCloseTo((await centre(page, 'a')).zoom, 5);
    };
    await page.setViewportSize({ width: 900, height: 900 });
    await centred();
    // At 900 px float and quantized are still beside each other (they stacked, one under the other, before).
    const [nA, nB] = [
      (await page.getByTestId('compare-canvas-a').boundingBox())!,
      (await page.getByTestId('compare-canvas-b').boundingBox())!,
    ];
    expect(nB.y).toBeCloseTo(nA.y, 0);
    expect(nB.x).toBeGreaterThanOrEqual(nA.x + nA.width);
    expect(nA.width).toBeGreaterThan(300);
    await page.getByTestId('compare-canvas-a').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('compare-900-selected.png') });
    await page.setViewportSize({ width: 1440, height: 900 });
    await centred();
    await page.getByTestId('compare-canvas-a').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('compare-1440-after-resize.png') });

    // A drag on the quantized pane's background (right of the centred node) moves the float pane by as much.
    await page.mouse.move(boxB.x + boxB.width - 40, boxB.y + boxB.height / 2);
    await page.mouse.down();
    await page.mouse.move(boxB.x + boxB.width - 100, boxB.y + boxB.height / 2 - 200, { steps: 8 });
    await page.mouse.up();
    await restingOn(page);
    const [ca2, cb2] = [await centre(page, 'a'), await centre(page, 'b')];
    expect(cb2.y - cb.y).toBeGreaterThan(100 / cb.zoom);
    expect(ca2.y - ca.y).toBeCloseTo(cb2.y - cb.y, 0);

    await page.setViewportSize({ width: 900, height: 900 });
    await page.getByTestId('compare-paint').selectOption('bits');
    await expect(page.getByTestId('compare-value-legend')).toContainText('8');
    await page.getByTestId('compare-canvas-a').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('compare-900.png') });
  });

  test('after a run, one click: float and quantized UltraFace, a folded BatchNormalization selects the Conv it went into', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await openWithModel(page, 'ultraface-rfb-320.onnx');
    await calibrateAndQuantize(
      page,
      ['face.png', 'grace_hopper.jpg'].map((n) => imageFromFixture(`photos/${n}`)),
      'ultraface',
      'U8S8',
    );
    await page.getByTestId('compare-quantized').click();
    const view = page.getByTestId('compare-view');
    await expect(view).toHaveAttribute('data-compare-drawn', 'true', { timeout: 60_000 });
    await expect(view).toHaveAttribute('data-related', 'true');
    await expect(page.getByTestId('compare-counts')).toContainText('35 folded in');
    // The float model is the one the model worker holds: only the quantized file is decoded for the comparison.
    const received = await page.evaluate(`performance.getEntriesByName('compare:received').at(-1).detail`);
    expect(received).toMatchObject({ decoded: [expect.stringMatching(/\.onnx$/)] });
    await page.getByTestId('compare-canvas-a').scrollIntoViewIfNeeded();
    await page.evaluate(() => window.__qsCompare!.focus('a', 'BatchNormalization_1'));
    await restingOn(page);
    const at = await page.evaluate(() => window.__qsCompare!.position('a', 'BatchNormalization_1'));
    await page.mouse.click(at!.x, at!.y);
    await expect(page.getByTestId('compare-selected-a')).toContainText('merged');
    await expect(page.getByTestId('compare-selected-b')).toHaveAttribute('data-node-id', 'Conv_0');
  });

  test('two models dropped together on the empty page: the first opens (decoded once), both side by side', async ({
    page,
  }, info) => {
    await page.goto('/');
    await dropFiles(page.getByTestId('drop-zone'), [
      fileFromFixture('ultraface-rfb-320.onnx'),
      fileFromFixture('ultraface-rfb-320-nopost.onnx'),
    ]);
    await expect(page.getByTestId('summary-file-name')).toHaveText('ultraface-rfb-320.onnx');
    const view = page.getByTestId('compare-view');
    await expect(view).toHaveAttribute('data-compare-drawn', 'true', { timeout: 60_000 });
    await expect(view).toHaveAttribute('data-related', 'true');
    // The export without post-processing lacks the 18-node tail (tests/helpers/ultrafaceTail.ts).
    await expect(page.getByTestId('compare-counts')).toContainText('18 only in ultraface-rfb-320.onnx');
    await expect(page.getByTestId('model-error')).toHaveCount(0);
    // The first file is decoded once: the model worker compares the model it opened; only the second is read again.
    const received = await page.evaluate(`performance.getEntriesByName('compare:received').at(-1).detail`);
    expect(received).toMatchObject({ decoded: ['ultraface-rfb-320-nopost.onnx'] });
    // Nor on the page, for the single pane's first picture (a model of 8 MB or less opened alone is: below).
    expect(await page.evaluate(`performance.getEntriesByName('model:opened-on-page').length`)).toBe(0);
    // The first model's single pane, which the split view replaces, was not prepared (folded, laid out) meanwhile.
    expect(await page.evaluate(`performance.getEntriesByName('graph:start').length`)).toBe(0);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('compare-canvas-a').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('compare-pair-drop-1440.png') });
    // Closed, the split view gives way to that pane, prepared now.
    await page.getByTestId('compare-close').click();
    await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });
  });

  test('two unrelated models: a named "No common nodes" message, both panes drawn', async ({ page }) => {
    await openWithModel(page, 'mnist.onnx');
    // Opened alone, a small model is decoded on the page too, for its first picture.
    const onPage = `performance.getEntriesByName('model:opened-on-page').map((e) => e.detail)`;
    expect(await page.evaluate(onPage)).toEqual(['mnist.onnx']);
    await dropFiles(page.getByTestId('compare-drop'), [
      fileFromFixture('mnist.onnx'),
      fileFromFixture('ultraface-rfb-320.onnx'),
    ]);
    const view = page.getByTestId('compare-view');
    await expect(view).toHaveAttribute('data-compare-drawn', 'true', { timeout: 60_000 });
    await expect(view).toHaveAttribute('data-related', 'false');
    await expect(page.getByTestId('compare-unrelated')).toContainText('No common nodes');
    await expect(page.getByTestId('compare-unrelated')).toContainText('mnist.onnx and ultraface-rfb-320.onnx share');
  });

  test('a drop of one model on the comparison target is refused by name', async ({ page }) => {
    await openWithModel(page, 'mnist.onnx');
    await dropFiles(page.getByTestId('compare-drop'), [fileFromFixture('mnist.onnx')]);
    await expect(page.getByTestId('compare-error')).toHaveAttribute('data-error-name', 'CompareInputError');
    await expect(page.getByTestId('compare-error')).toContainText('only mnist.onnx was given');
  });
});
