import path from 'node:path';
import {
  dropFiles,
  expect,
  expectSummaryOf,
  fileAt,
  openStudio,
  runBuilder,
  test,
  type PayloadFile,
} from './support.ts';

/** split.onnx and its weights.bin, built by e2e/builders/externalDataModel.ts into this test's output folder. */
function externalDataModel(outDir: string): { model: PayloadFile; data: PayloadFile } {
  runBuilder('externalDataModel', outDir);
  return { model: fileAt(path.join(outDir, 'split.onnx')), data: fileAt(path.join(outDir, 'weights.bin')) };
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
