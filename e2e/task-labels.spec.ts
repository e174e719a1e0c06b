/**
 * Labels on the evaluation screen in a real Chromium: a labels file chosen beside the evaluation images (an
 * image,class CSV for mnist's digit classifier) judges the task against it, the float and quantized figures and
 * the drop shown beside the agreement; labels with a class out of range or naming no image are refused by name.
 */
import { calibrateAndQuantize, expect, imageFromFixture, openWithModel, test } from './support.ts';

const PHOTOS = ['chelsea.png', 'coffee.png'].map((n) => imageFromFixture(`photos/${n}`));
const csv = (text: string) => ({ name: 'labels.csv', mimeType: 'text/csv', buffer: Buffer.from(text) });

test('a labels CSV judges mnist against it: float, quantized and the drop; bad labels a named error', async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openWithModel(page, 'mnist.onnx');
  await calibrateAndQuantize(page, PHOTOS, 'unit', 'XINT8');
  await page.getByTestId('eval-layers-toggle').uncheck();

  await page.getByTestId('task-labels-input').setInputFiles(csv('chelsea.png,3\ncoffee.png,3\n'));
  await expect(page.getByTestId('task-labels-title')).toContainText('labels.csv');
  await page.getByTestId('evaluate-button').click();
  const figure = page.getByTestId('eval-task-labels');
  await expect(figure).toContainText(
    /Against labels \(top-1[^)]*\): float \d+\.\d% · quantized \d+\.\d% · drop -?\d+\.\d pt/,
    {
      timeout: 90_000,
    },
  );
  await expect(page.getByTestId('eval-task')).toContainText('Against the labels');
  await figure.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('task-labels-1440.png') });

  // A class the model does not have: named, no figure against labels.
  await page.getByTestId('task-labels-input').setInputFiles(csv('chelsea.png,10\ncoffee.png,3\n'));
  await page.getByTestId('evaluate-button').click();
  const error = page.getByTestId('task-error');
  await expect(error).toHaveAttribute('data-error-name', 'TaskLabelError', { timeout: 90_000 });
  await expect(error).toContainText('The labels do not fit the images');
  await expect(error).toContainText('class 10 is out of range');
  await expect(figure).toHaveCount(0);
  await error.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('task-labels-error-1440.png') });

  // A label naming an image not in the data.
  await page.getByTestId('task-labels-input').setInputFiles(csv('chelsea.png,3\ncoffee.png,3\ndog.png,1\n'));
  await page.getByTestId('evaluate-button').click();
  await expect(error).toContainText('dog.png', { timeout: 90_000 });
});
