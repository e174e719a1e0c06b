/**
 * Models with external data in the page (issue 19): the .onnx and its data file picked together open,
 * calibrate, quantize and evaluate (the data file reaches every worker as the user's File, which the worker
 * reads itself: the path a file of 2 GiB or more takes), and the result downloads as two files (the .onnx and its .onnx.data) that
 * onnxruntime-node loads; a model whose session cannot fit the 4 GiB WebAssembly memory is refused by name
 * before a byte of it is read. The files are made on disk (bench/largeModel.ts; the oversized data file is
 * sparse) and given by path, as a user's file dialog gives them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import type { LargeModelFiles } from '../bench/largeModel.ts';
import { PAGE_MODEL_LIMIT_BYTES } from '../src/core/runtime/wasmHeap.ts';
import { dropFiles, expect, expectSummaryOf, imageFromFixture, openStudio, test } from './support.ts';

/** An MLP of at least `bytes` of weights in `dir`, made by e2e/builders/largeModel.ts. */
function writeLargeModel(
  dir: string,
  bytes: number,
  { name, width }: { name: string; width: number },
): LargeModelFiles {
  const out = execFileSync(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(import.meta.dirname, 'builders/largeModel.ts'),
      dir,
      String(bytes),
      name,
      String(width),
    ],
    { encoding: 'utf8' },
  );
  return JSON.parse(out) as LargeModelFiles;
}

test.describe('models with external data, large ones', () => {
  test("a model whose session cannot fit the page's WebAssembly memory is refused by name before it is read", async ({
    page,
  }, info) => {
    const dir = info.outputPath('huge');
    fs.mkdirSync(dir, { recursive: true });
    const { onnx, data } = writeLargeModel(dir, 1e6, { name: 'huge', width: 256 });
    fs.truncateSync(data, PAGE_MODEL_LIMIT_BYTES + 2 ** 20); // sparse: no disk used, never read
    await openStudio(page);
    await page.getByTestId('file-input').setInputFiles([onnx, data]);
    const error = page.getByTestId('model-error');
    await expect(error).toHaveAttribute('data-error-name', 'ModelTooLargeError');
    await expect(error).toContainText('npx qstudio quantize');
  });

  test("the .onnx with its data file (the user's Files, read by each worker) opens, calibrates, quantizes and evaluates; the result downloads as .onnx + .onnx.data that onnxruntime-node runs", async ({
    page,
  }, info) => {
    test.setTimeout(240_000);
    const dir = info.outputPath('model');
    fs.mkdirSync(dir, { recursive: true });
    const files = writeLargeModel(dir, 40e6, { name: 'wide', width: 1024 });
    await openStudio(page);
    await page.getByTestId('file-input').setInputFiles([files.onnx, files.data]);
    const summary = await expectSummaryOf(page, 'wide.onnx');
    await expect(summary.getByTestId('summary-node-count')).toHaveText(String(1 + 3 * (files.layers + 1) + 2));
    await dropFiles(page.getByTestId('calibration-drop'), [
      imageFromFixture('photos/grace_hopper.jpg'),
      imageFromFixture('photos/flower.jpg'),
    ]);
    await page.getByTestId('preprocess-preset').selectOption('unit');
    await page.getByTestId('calibrate-button').click();
    await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 120_000 });
    await page.getByTestId('quantize-button').click();
    await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 60_000 });

    const out = info.outputPath('out');
    fs.mkdirSync(out, { recursive: true });
    const [model] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
    const [data] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model-data').click()]);
    expect(model.suggestedFilename()).toBe('wide.quant.onnx');
    expect(data.suggestedFilename()).toBe('wide.quant.onnx.data');
    await model.saveAs(path.join(out, model.suggestedFilename()));
    await data.saveAs(path.join(out, data.suggestedFilename()));
    expect(fs.statSync(path.join(out, 'wide.quant.onnx')).size).toBeLessThan(1 << 20);
    expect(fs.statSync(path.join(out, 'wide.quant.onnx.data')).size).toBeGreaterThan(files.dataBytes / 4 - (1 << 20));

    const session = await ort.InferenceSession.create(path.join(out, 'wide.quant.onnx'), {
      graphOptimizationLevel: 'basic',
    });
    try {
      const result = await session.run({
        image: new ort.Tensor('float32', new Float32Array(3 * 32 * 32).fill(0.5), [1, 3, 32, 32]),
      });
      expect(result.logits.dims).toEqual([1, 16]);
      expect((result.logits.data as Float32Array).every(Number.isFinite)).toBe(true);
    } finally {
      await session.release();
    }

    // The evaluation worker gets the data file as the user's File too, reads it itself, and compares.
    await page.getByTestId('eval-layers-toggle').uncheck();
    await page.getByTestId('evaluate-button').click();
    await expect(page.getByTestId('eval-result')).toBeVisible({ timeout: 120_000 });
    expect(Number(await page.getByTestId('eval-mean-cosine').textContent())).toBeGreaterThan(0.9);
  });
});
