import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dropFiles, expect, expectSummaryOf, openStudio, test, type PayloadFile } from './support.ts';

/** split.onnx and its weights.bin, built by e2e/builders/externalDataModel.ts into this test's output folder. */
function externalDataModel(outDir: string): { model: PayloadFile; data: PayloadFile } {
  execFileSync(process.execPath, [
    '--import',
    'tsx',
    path.join(import.meta.dirname, 'builders/externalDataModel.ts'),
    outDir,
  ]);
  const read = (name: string): PayloadFile => ({
    name,
    mimeType: 'application/octet-stream',
    buffer: fs.readFileSync(path.join(outDir, name)),
  });
  return { model: read('split.onnx'), data: read('weights.bin') };
}

test.describe('models with external data', () => {
  test('dropping the .onnx with its data file opens it', async ({ page }, info) => {
    const { model, data } = externalDataModel(info.outputPath('model'));
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), [data, model]);
    const summary = await expectSummaryOf(page, 'split.onnx');
    await expect(summary.getByTestId('summary-node-count')).toHaveText('1');
    await expect(summary.getByTestId('summary-parameters')).toContainText('4');
  });

  test('the .onnx alone is refused as missing external data, naming the data file', async ({ page }, info) => {
    const { model } = externalDataModel(info.outputPath('model'));
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), model);
    const error = page.getByTestId('model-error');
    await expect(error).toHaveAttribute('data-error-name', 'ExternalDataError');
    await expect(error).toContainText('Missing external data');
    await expect(error).toContainText('weights.bin');
  });
});
