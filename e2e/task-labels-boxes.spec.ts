/**
 * Box labels on the evaluation screen, in a real Chromium on YOLOX-nano (issue 31): a COCO JSON written by hand
 * for three fixture photos gives "Against labels: float · quantized · drop" with the same mAP figures as
 * `qstudio evaluate --labels` on the model the page wrote; the same boxes as a folder of YOLO .txt files (chosen
 * as a folder) give the same figures; a box outside its image and a label naming no image are named errors
 * while the evaluation stays; another model clears the labels, visibly.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import {
  calibrateAndQuantize,
  dropFiles,
  evaluateAndWait,
  expect,
  fileFromFixture,
  IMAGES,
  imageFromFixture,
  test,
} from './support.ts';
import { openWithModel } from './support.ts';

const CALIBRATION = ['000000000139.jpg', '000000000285.jpg', '000000000632.jpg'].map((n) =>
  imageFromFixture(`coco/${n}`),
);
const HELD_OUT = ['photos/yolox_dog.jpg', 'coco/000000001532.jpg', 'coco/000000001584.jpg'];

/** Boxes drawn by hand (by eye, [x, y, width, height] in pixels) over the three held-out photos. */
const COCO = {
  images: [
    { id: 1, file_name: 'yolox_dog.jpg', width: 768, height: 576 },
    { id: 2, file_name: '000000001532.jpg', width: 640, height: 480 },
    { id: 3, file_name: '000000001584.jpg', width: 612, height: 612 },
  ],
  categories: [
    { id: 2, name: 'bicycle' },
    { id: 3, name: 'car' },
    { id: 6, name: 'bus' },
    { id: 18, name: 'dog' },
  ],
  annotations: [
    { id: 1, image_id: 1, category_id: 18, bbox: [133, 222, 172, 320] },
    { id: 2, image_id: 1, category_id: 2, bbox: [125, 135, 442, 285] },
    { id: 3, image_id: 1, category_id: 3, bbox: [467, 75, 231, 95] },
    { id: 4, image_id: 2, category_id: 3, bbox: [0, 372, 115, 108] },
    { id: 5, image_id: 2, category_id: 3, bbox: [228, 358, 192, 122] },
    { id: 6, image_id: 2, category_id: 3, bbox: [105, 372, 95, 65] },
    { id: 7, image_id: 3, category_id: 6, bbox: [128, 88, 392, 442] },
  ],
};
/** YOLOX's COCO class numbers of the categories above (0-based, the model's own order). */
const YOLO_CLASS: Record<number, number> = { 2: 1, 3: 2, 6: 5, 18: 16 };

const json = (name: string, value: unknown) => ({
  name,
  mimeType: 'application/json',
  buffer: Buffer.from(JSON.stringify(value)),
});

/** The figures of the "Against the labels" table: metric → [float, quantized] as shown. */
async function labelTable(page: Page): Promise<Record<string, [string, string]>> {
  const rows = await page
    .getByTestId('eval-task')
    .locator('h3:text("Against the labels") + table tbody tr')
    .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent ?? '')));
  return Object.fromEntries(rows.map((r) => [r[0], [r[1], r[2]]]));
}

async function shoot(page: Page, testId: string, file: string): Promise<void> {
  await page.getByTestId(testId).scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.screenshot({ path: file });
}

test('YOLOX-nano: COCO JSON and YOLO txt labels give the CLI’s mAP figures; bad boxes named; cleared on another model', async ({
  page,
}, info) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openWithModel(page, 'yolox-nano.onnx');
  await calibrateAndQuantize(page, CALIBRATION, 'yolo', 'XINT8');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
  const quantPath = info.outputPath('yolox-nano.quant.onnx');
  await download.saveAs(quantPath);

  await dropFiles(page.getByTestId('eval-drop'), HELD_OUT.map(imageFromFixture));
  await expect(page.getByTestId('eval-source-own')).toBeChecked();
  await page.getByTestId('eval-layers-toggle').uncheck();
  await expect(page.getByTestId('task-labels-title')).toHaveText('Drop labels here (optional)');
  await expect(page.getByTestId('task-labels-drop')).toContainText('a COCO .json, or YOLO .txt files');

  // COCO JSON, dropped on the labels zone.
  await dropFiles(page.getByTestId('task-labels-drop'), json('hand.coco.json', COCO));
  await expect(page.getByTestId('task-labels-title')).toHaveText('Labels: hand.coco.json');
  await evaluateAndWait(page);
  const figure = page.getByTestId('eval-task-labels');
  await expect(figure).toContainText(
    /Against labels \(mAP@0\.5\): float \d+\.\d% · quantized \d+\.\d% · drop -?\d+\.\d pt/,
  );
  const coco = await labelTable(page);
  expect(Object.keys(coco)).toEqual(expect.arrayContaining(['mAP@0.5', 'mAP@0.5:0.95']));
  await shoot(page, 'eval-task-labels', info.outputPath('labels-coco-1440.png'));
  await page.setViewportSize({ width: 900, height: 900 });
  await shoot(page, 'task-labels-drop', info.outputPath('labels-drop-900.png'));
  await page.setViewportSize({ width: 1440, height: 900 });

  // The CLI on the same files: the model the page wrote, the same photos, the same labels.
  const dir = info.outputPath('cli');
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
  for (const f of HELD_OUT) fs.copyFileSync(path.join(IMAGES, f), path.join(dir, 'data', path.basename(f)));
  fs.writeFileSync(path.join(dir, 'hand.coco.json'), JSON.stringify(COCO));
  const cli = spawnSync(
    process.execPath,
    [
      path.resolve(import.meta.dirname, '../bin/qstudio.js'),
      'evaluate',
      path.resolve(import.meta.dirname, '../../shared/fixtures/models/yolox-nano.onnx'),
      quantPath,
      '--data',
      path.join(dir, 'data'),
      '--preprocess',
      'auto',
      '--labels',
      path.join(dir, 'hand.coco.json'),
      '--json',
    ],
    { encoding: 'utf8' },
  );
  expect(cli.status, cli.stderr).toBe(0);
  const figures: { metric: string; float: number; quantized: number }[] = JSON.parse(cli.stdout).task.labels.figures;
  const shown = (v: number) => `${(v * 100).toFixed(2)} %`;
  const fromCli = Object.fromEntries(figures.map((f) => [f.metric, [shown(f.float), shown(f.quantized)]]));
  fs.writeFileSync(info.outputPath('figures.json'), JSON.stringify({ page: coco, cli: figures }, null, 2));
  expect(coco).toEqual(fromCli);

  // The same boxes as YOLO .txt files (class cx cy w h, fractions of the image), chosen as a folder.
  const yolo = path.join(dir, 'yolo-labels');
  fs.mkdirSync(yolo, { recursive: true });
  for (const im of COCO.images) {
    const lines = COCO.annotations
      .filter((a) => a.image_id === im.id)
      .map(({ category_id, bbox: [x, y, w, h] }) =>
        [YOLO_CLASS[category_id], (x + w / 2) / im.width, (y + h / 2) / im.height, w / im.width, h / im.height].join(
          ' ',
        ),
      );
    fs.writeFileSync(path.join(yolo, im.file_name.replace(/\.jpg$/, '.txt')), lines.join('\n'));
  }
  await page.getByTestId('task-labels-folder-input').setInputFiles(yolo);
  await expect(page.getByTestId('task-labels-title')).toHaveText('Labels: yolo-labels/ (3 files)');
  await evaluateAndWait(page);
  expect(await labelTable(page)).toEqual(coco);

  // A box outside its image: named; the evaluation itself is kept.
  const outside = structuredClone(COCO);
  outside.annotations[0].bbox = [700, 500, 200, 200];
  await dropFiles(page.getByTestId('task-labels-drop'), json('outside.json', outside));
  await expect(page.getByTestId('task-labels-title')).toHaveText('Labels: outside.json');
  await evaluateAndWait(page);
  const error = page.getByTestId('task-error');
  await expect(error).toHaveAttribute('data-error-name', 'TaskLabelError');
  await expect(error).toContainText('reaches outside its 768×576 image');
  await expect(page.getByTestId('eval-result')).toBeVisible();
  await expect(figure).toHaveCount(0);
  await shoot(page, 'task-error', info.outputPath('labels-error-1440.png'));

  // A label naming an image that is not in the data.
  const orphan = structuredClone(COCO);
  orphan.images.push({ id: 4, file_name: 'nowhere.jpg', width: 640, height: 480 });
  await dropFiles(page.getByTestId('task-labels-drop'), json('orphan.json', orphan));
  await evaluateAndWait(page);
  await expect(error).toContainText('nowhere.jpg');
  await expect(page.getByTestId('eval-result')).toBeVisible();

  // Another model: the labels named this model's images; they are cleared, and the page says so.
  await dropFiles(page.locator('body'), fileFromFixture('ultraface-rfb-320.onnx'));
  await expect(page.getByTestId('model-summary').getByTestId('summary-file-name')).toHaveText('ultraface-rfb-320.onnx');
  await expect(page.getByTestId('task-labels-cleared')).toContainText('orphan.json were cleared');
  await expect(page.getByTestId('task-labels-title')).toHaveText('Drop labels here (optional)');
  await shoot(page, 'task-labels', info.outputPath('labels-cleared-1440.png'));
  await page.setViewportSize({ width: 900, height: 900 });
  await shoot(page, 'task-labels', info.outputPath('labels-cleared-900.png'));
});
