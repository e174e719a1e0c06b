/**
 * The label kinds the page takes as many files or a folder, in a real Chromium, through the CLI's reader (issue
 * 31): a folder per class chosen with "Choose a folder…" or dropped judges mnist as its image,class CSV does
 * (the same figures); a class folder the model does not have is named. PNG masks dropped as several files judge a
 * small per-pixel classifier built here (a 1×1 Conv whose class is the strongest colour channel): mIoU 1 for the
 * float model against masks of what it computes; a mask of another size is a named error and the evaluation stays.
 */
import fs from 'node:fs';
import path from 'node:path';
import pngjs from 'pngjs';
import type { FileChooser, Page } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import {
  calibrateAndQuantize,
  dropFiles,
  evaluateAndWait,
  expect,
  expectSummaryOf,
  imageFromFixture,
  openStudio,
  openWithModel,
  test,
} from './support.ts';

/**
 * Drops a real folder on a locator: Chromium's own drag (CDP Input.dispatchDragEvent with a path), whose entries
 * the page walks (webkitGetAsEntry); Playwright's locator.drop takes files only.
 */
async function dropFolder(page: Page, testId: string, dir: string): Promise<void> {
  const zone = page.getByTestId(testId);
  await zone.scrollIntoViewIfNeeded();
  const box = (await zone.boundingBox())!;
  const cdp = await page.context().newCDPSession(page);
  const data = { items: [], files: [dir], dragOperationsMask: 1 };
  for (const type of ['dragEnter', 'dragOver', 'drop'] as const)
    await cdp.send('Input.dispatchDragEvent', { type, x: box.x + box.width / 2, y: box.y + box.height / 2, data });
  await cdp.detach();
}

const labelsFigure = (page: Page) => page.getByTestId('eval-task-labels').textContent();

test('mnist: a folder per class gives the CSV’s figures; a class folder out of range is named', async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openWithModel(page, 'mnist.onnx');
  const photos = ['chelsea.png', 'coffee.png'];
  await calibrateAndQuantize(
    page,
    photos.map((n) => imageFromFixture(`photos/${n}`)),
    'unit',
    'XINT8',
  );
  await page.getByTestId('eval-layers-toggle').uncheck();
  await expect(page.getByTestId('task-labels-drop')).toContainText('a folder per class');

  // Keyboard: the drop zone is a button; Enter opens the file chooser (several files allowed).
  // Focus again if a re-render took it before Enter landed (seen under CI load); Enter must still open it.
  const drop = page.getByTestId('task-labels-drop');
  let chooser: FileChooser | undefined;
  await expect(async () => {
    await drop.focus();
    await expect(drop).toBeFocused();
    [chooser] = await Promise.all([page.waitForEvent('filechooser', { timeout: 5_000 }), page.keyboard.press('Enter')]);
  }).toPass({ timeout: 60_000 });
  if (!chooser) throw new Error('Enter opened no file chooser');
  expect(chooser.isMultiple()).toBe(true);
  await chooser.setFiles({
    name: 'labels.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from('chelsea.png,3\ncoffee.png,5\n'),
  });
  await expect(page.getByTestId('task-labels-title')).toHaveText('Labels: labels.csv');
  await evaluateAndWait(page);
  const fromCsv = await labelsFigure(page);
  expect(fromCsv).toMatch(/Against labels \(top-1[^)]*\): float \d+\.\d% · quantized \d+\.\d%/);

  const folder = (name: string, classes: Record<string, string>) => {
    const root = info.outputPath(name);
    for (const [photo, cls] of Object.entries(classes)) {
      fs.mkdirSync(path.join(root, cls), { recursive: true });
      fs.writeFileSync(path.join(root, cls, photo), imageFromFixture(`photos/${photo}`).buffer);
    }
    return root;
  };
  await page
    .getByTestId('task-labels-folder-input')
    .setInputFiles(folder('digits', { 'chelsea.png': '3', 'coffee.png': '5' }));
  await expect(page.getByTestId('task-labels-title')).toHaveText('Labels: digits/ (2 files)');
  await evaluateAndWait(page);
  expect(await labelsFigure(page)).toBe(fromCsv);
  await page.getByTestId('task-labels').scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('labels-folder-1440.png') });

  // The same folder dropped: its entries walked, the same figures.
  await page.getByTestId('task-labels-remove').click();
  await expect(page.getByTestId('task-labels-title')).toHaveText('Drop labels here (optional)');
  await dropFolder(page, 'task-labels-drop', info.outputPath('digits'));
  await expect(page.getByTestId('task-labels-title')).toHaveText('Labels: digits/ (2 files)');
  await evaluateAndWait(page);
  expect(await labelsFigure(page)).toBe(fromCsv);

  await page
    .getByTestId('task-labels-folder-input')
    .setInputFiles(folder('wrong', { 'chelsea.png': '3', 'coffee.png': '12' }));
  await evaluateAndWait(page);
  const error = page.getByTestId('task-error');
  await expect(error).toHaveAttribute('data-error-name', 'TaskLabelError');
  await expect(error).toContainText('class 12 is out of range');
  await expect(page.getByTestId('eval-result')).toBeVisible();
});

const SIZE = 16;
/** Which colour channel dominates pixel column x of photo k: three vertical bands, rotated per photo. */
const band = (k: number, x: number) => (Math.floor((x * 3) / SIZE) + k) % 3;
function png(width: number, height: number, pixel: (x: number, y: number) => number[]): Buffer {
  const p = new pngjs.PNG({ width, height });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) p.data.set([...pixel(x, y), 255], (y * width + x) * 4);
  return pngjs.PNG.sync.write(p);
}
const image = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/png', buffer });

test('a per-pixel classifier: PNG masks dropped as files give mIoU 1 for the float model; a mask of another size is named', async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  // Built by the project's model helpers in a child process (tsx: the core reads its ONNX schema as JSON).
  const modelPath = info.outputPath('bands.onnx');
  const built = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import fs from 'node:fs';
       import { encode, makeNode } from './src/core/onnx/index.ts';
       import { f32, floatIO, smallModel } from './tests/helpers/smallModels.ts';
       fs.writeFileSync(${JSON.stringify(modelPath)}, encode(smallModel({
         opset: 13,
         inputs: [floatIO('image', [1, 3, ${SIZE}, ${SIZE}])],
         outputs: [floatIO('classes', [1, 3, ${SIZE}, ${SIZE}])],
         initializers: [f32('w', [3, 3, 1, 1], [1, 0, 0, 0, 1, 0, 0, 0, 1])],
         nodes: [makeNode('Conv', ['image', 'w'], ['classes'], 'conv')],
       })));`,
    ],
    { cwd: path.resolve(import.meta.dirname, '..'), encoding: 'utf8' },
  );
  expect(built.status, built.stderr).toBe(0);
  const model = fs.readFileSync(modelPath);
  await openStudio(page);
  await dropFiles(page.getByTestId('drop-zone'), {
    name: 'bands.onnx',
    mimeType: 'application/octet-stream',
    buffer: Buffer.from(model),
  });
  await expectSummaryOf(page, 'bands.onnx');
  await expect(page.getByTestId('task-head')).toHaveAttribute('data-kind', 'segment');
  const photos = [0, 1, 2].map((k) =>
    image(
      `photo${k}.png`,
      png(SIZE, SIZE, (x) => [0, 1, 2].map((c) => (c === band(k, x) ? 200 : 40))),
    ),
  );
  await calibrateAndQuantize(page, photos, 'unit', 'XINT8');
  await page.getByTestId('eval-layers-toggle').uncheck();
  await expect(page.getByTestId('task-labels-drop')).toContainText('PNG masks named as their images');

  // Masks of what the model computes (class = the band's channel), one pixel marked 255: ignored.
  const masks = [0, 1, 2].map((k) =>
    image(
      `photo${k}.png`,
      png(SIZE, SIZE, (x, y) => (x === 0 && y === 0 ? [255, 255, 255] : Array(3).fill(band(k, x)))),
    ),
  );
  await dropFiles(page.getByTestId('task-labels-drop'), masks);
  await expect(page.getByTestId('task-labels-title')).toHaveText('Labels: 3 files');
  await evaluateAndWait(page);
  await expect(page.getByTestId('eval-task-labels')).toContainText('Against labels (mIoU): float 100.0%');
  await page.getByTestId('eval-task-labels').scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('labels-masks-1440.png') });

  const small = [
    ...masks.slice(0, 2),
    image(
      'photo2.png',
      png(8, 8, () => [1, 1, 1]),
    ),
  ];
  await dropFiles(page.getByTestId('task-labels-drop'), small);
  await evaluateAndWait(page);
  const error = page.getByTestId('task-error');
  await expect(error).toHaveAttribute('data-error-name', 'TaskLabelError');
  await expect(error).toContainText('the mask of "photo2.png" is 8×8, its image 16×16');
  await expect(page.getByTestId('eval-result')).toBeVisible();
});
