/**
 * .npy tensors as calibration data (what users who preprocess in Python bring): a file that fits the
 * model's input is a sample; one that does not is named with the core's reason when it is added,
 * and calibration runs on the good ones.
 */
import { dropFiles, evaluateAndWait, expect, openWithModel, test, type PayloadFile } from './support.ts';

/** A C-order float32 .npy file (format 1.0) of `dims`, filled with values from 0 to 1 (shifted by `phase`). */
function npy(name: string, dims: number[], phase = 0): PayloadFile {
  const count = dims.reduce((a, b) => a * b, 1);
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${dims.join(', ')}${dims.length === 1 ? ',' : ''}), }`;
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const data = new Float32Array(count).map((_, i) => ((i + phase) % 97) / 96);
  const buffer = Buffer.concat([
    Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]),
    Buffer.from(header),
    Buffer.from(data.buffer),
  ]);
  return { name, mimeType: 'application/octet-stream', buffer };
}

test('mnist calibrates on .npy tensors, and a tensor of the wrong shape is named and left out', async ({ page }) => {
  await openWithModel(page, 'mnist.onnx');
  await dropFiles(page.getByTestId('calibration-drop'), [
    npy('digit0.npy', [1, 1, 28, 28]),
    npy('digit1.npy', [1, 1, 28, 28]),
    npy('wrong.npy', [1, 28, 28]),
  ]);
  await expect(page.getByTestId('calibration-summary')).toHaveText('2 .npy samples');
  const rejected = page.getByTestId('calibration-rejected');
  await expect(rejected).toContainText('wrong.npy');
  await expect(rejected).toContainText('NpyInputMismatchError');

  await page.getByTestId('quant-preset').selectOption('U8S8');
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('calibration-used')).toHaveText('2');
  await page.getByTestId('quantize-button').click();
  await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('download-model')).toHaveText('Download mnist.quant.onnx');
});

test('a held-out evaluation set of .npy tensors is taken and judged, as the calibration takes them', async ({
  page,
}) => {
  await openWithModel(page, 'mnist.onnx');
  await dropFiles(page.getByTestId('calibration-drop'), [
    npy('a.npy', [1, 1, 28, 28]),
    npy('b.npy', [1, 1, 28, 28], 5),
  ]);
  await page.getByTestId('quant-preset').selectOption('U8S8');
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('quantize-button').click();
  await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 30_000 });

  await dropFiles(page.getByTestId('eval-drop'), [
    npy('held0.npy', [1, 1, 28, 28], 11),
    npy('held1.npy', [1, 1, 28, 28], 23),
    npy('held-wrong.npy', [1, 28, 28], 1),
  ]);
  await expect(page.getByTestId('eval-summary')).toHaveText('2 evaluation samples');
  await expect(page.getByTestId('eval-source-own')).toBeChecked();
  await expect(page.getByTestId('eval-rejected')).toContainText('held-wrong.npy: NpyInputMismatchError');
  await evaluateAndWait(page);
  await expect(page.getByTestId('eval-result')).toContainText('1 output, 2 samples');
});
