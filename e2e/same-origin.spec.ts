import { dropFiles, expect, expectSummaryOf, fileFromFixture, openStudio, test } from './support.ts';

test('a whole session requests nothing outside the page’s own origin', async ({ page, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));

  await openStudio(page);
  await page.getByTestId('sample-model-button').click();
  await expectSummaryOf(page, 'ppocr-det.onnx');
  await dropFiles(page.locator('body'), fileFromFixture('yolox-nano.onnx'));
  await expectSummaryOf(page, 'yolox-nano.onnx');
  await dropFiles(page.locator('body'), fileFromFixture('negative/not-a-model.onnx'));
  await expect(page.getByTestId('model-error')).toHaveAttribute('data-error-name', 'NotOnnxError');

  expect(requests.length).toBeGreaterThan(0);
  const foreign = requests.filter(
    (url) => !(url.startsWith(`${origin}/`) || url.startsWith('blob:') || url.startsWith('data:')),
  );
  expect(foreign).toEqual([]);
  // The page really fetched its own pieces: the document, the worker and the sample model.
  expect(requests).toContain(`${origin}/samples/ppocr-det.onnx`);
  expect(requests.some((url) => /\/assets\/model\.worker-.*\.js$/.test(url))).toBe(true);
});
