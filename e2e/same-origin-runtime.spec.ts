/**
 * With onnxruntime loaded (a calibration run), the page still requests nothing from elsewhere: the
 * runtime's script and WebAssembly come from the page's own origin (Vite emits them), and the
 * Content-Security-Policy lets them run (a blocked worker or wasm would be a console error, which
 * fails every spec).
 */
import { dropFiles, expect, imageFromFixture, openWithModel, test } from './support.ts';

test('calibrating loads onnxruntime and its WebAssembly from the page’s own origin only', async ({ page, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const requests: string[] = [];
  page.on('request', (r) => requests.push(r.url()));

  await openWithModel(page, 'ultraface-rfb-320.onnx');
  await dropFiles(page.getByTestId('calibration-drop'), imageFromFixture('photos/face.png'));
  await page.getByTestId('quant-preset').selectOption('U8S8');
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 60_000 });

  const foreign = requests.filter(
    (url) => !(url.startsWith(`${origin}/`) || url.startsWith('blob:') || url.startsWith('data:')),
  );
  expect(foreign).toEqual([]);
  expect(
    requests.some((url) => url.startsWith(`${origin}/`) && /\/assets\/calibration\.worker-.*\.js$/.test(url)),
  ).toBe(true);
  expect(
    requests.some((url) => url.startsWith(`${origin}/`) && /\/assets\/ort-wasm-simd-threaded.*\.wasm$/.test(url)),
  ).toBe(true);
});
