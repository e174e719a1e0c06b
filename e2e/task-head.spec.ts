/**
 * The task head on the evaluation screen in a real Chromium: YOLOX-nano's head is recognised and shown as a
 * suggestion with its decoder's thresholds; changing one changes the task figures at once (the evaluation's
 * outputs read again, no model run), a value out of range is refused by name, and the choice survives a reload.
 * A model made in code whose output is no known head asks "Task not recognised — choose one" and shows no task
 * figure until the user chooses; a decoder its outputs cannot be read as is refused with the reason.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  calibrateAndQuantize,
  dropFiles,
  expect,
  expectSummaryOf,
  fileAt,
  imageFromFixture,
  openStudio,
  openWithModel,
  runBuilder,
  test,
} from './support.ts';
import type { Page } from '@playwright/test';

const COCO = ['000000000139.jpg', '000000000632.jpg'].map((n) => imageFromFixture(`coco/${n}`));

async function shoot(page: Page, target: string, file: string): Promise<void> {
  await page.getByTestId(target).scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.screenshot({ path: file });
}

test.describe('task head', () => {
  test('YOLOX-nano: the recognised head is a suggestion; a changed threshold changes the figures and is kept per model', async ({
    page,
  }, info) => {
    test.setTimeout(240_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    await openWithModel(page, 'yolox-nano.onnx');
    const head = page.getByTestId('task-head');
    await expect(head).toHaveAttribute('data-state', 'suggested');
    await expect(head).toHaveAttribute('data-kind', 'yolox');
    await expect(page.getByTestId('task-suggestion')).toContainText('Recognised: YOLOX detector');
    await expect(page.getByTestId('task-evidence')).toContainText('80 class scores');
    await expect(page.getByTestId('task-field-scoreThreshold')).toHaveValue('0.3');
    await expect(page.getByTestId('task-field-nmsIou')).toHaveValue('0.45');
    await expect(page.getByTestId('task-head-text')).toContainText('NMS IoU 0.45');

    await calibrateAndQuantize(page, COCO, 'yolo', 'A16W8');
    await page.getByTestId('eval-layers-toggle').uncheck();
    await page.getByTestId('evaluate-button').click();
    const task = page.getByTestId('eval-task');
    await expect(task).toHaveAttribute('data-task', 'detect', { timeout: 120_000 });
    await expect(task).toContainText('boxes at score ≥ 0.3');
    // The float model's boxes counted as found at the threshold (and what the quantized model kept of them).
    const floatBoxes = async () =>
      Number((await task.textContent())!.match(/Of the float model's (\d+) boxes at score/)![1]);
    const before = await floatBoxes();
    expect(before).toBeGreaterThan(0);

    // A threshold changed: the figures follow at once, the choice is the user's now.
    await page.getByTestId('task-field-scoreThreshold').fill('0.6');
    await expect(head).toHaveAttribute('data-state', 'chosen');
    await expect(task).toContainText('boxes at score ≥ 0.6');
    await expect(page.getByTestId('task-head-text')).toContainText('score ≥ 0.6 counts as found');
    expect(await floatBoxes()).toBeLessThan(before);
    // Out of range: refused by name, the figures left as they were.
    await page.getByTestId('task-field-nmsIou').fill('1.5');
    await expect(page.getByTestId('task-field-nmsIou-problem')).toHaveText('NMS IoU: give a number from 0 to 1');
    await expect(page.getByTestId('task-head-text')).toContainText('NMS IoU 0.45');
    await page.getByTestId('task-field-nmsIou').fill('0.45');
    await shoot(page, 'task-head', info.outputPath('task-head-1440.png'));
    await page.setViewportSize({ width: 900, height: 900 });
    await shoot(page, 'task-head', info.outputPath('task-head-900.png'));
    await page.setViewportSize({ width: 1440, height: 900 });

    // Kept per model across a reload (the session's saved choices).
    await page.evaluate(() => window.__qsSession!.flush()); // the session's debounced writes, done now
    await page.reload();
    await expectSummaryOf(page, 'yolox-nano.onnx');
    await expect(head).toHaveAttribute('data-state', 'chosen');
    await expect(page.getByTestId('task-field-scoreThreshold')).toHaveValue('0.6');
    // Back to the suggestion: the recognised head's own thresholds.
    await page.getByTestId('task-reset').click();
    await expect(head).toHaveAttribute('data-state', 'suggested');
    await expect(page.getByTestId('task-field-scoreThreshold')).toHaveValue('0.3');
  });

  test('a model whose output is no known head: "Task not recognised — choose one", no task figure until chosen', async ({
    page,
  }, info) => {
    test.setTimeout(180_000);
    await page.setViewportSize({ width: 1440, height: 900 });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-head-'));
    const file = path.join(dir, 'unknown-head.onnx');
    runBuilder('unknownHeadModel', file);
    await openStudio(page);
    await dropFiles(page.getByTestId('drop-zone'), fileAt(file));
    await expectSummaryOf(page, 'unknown-head.onnx');
    const head = page.getByTestId('task-head');
    await expect(head).toHaveAttribute('data-state', 'unrecognised');
    await expect(page.getByTestId('task-unrecognised')).toContainText('Task not recognised — choose one');
    await expect(page.getByTestId('task-unrecognised')).toContainText('"features" [1, 8, 784]');
    await expect(page.getByTestId('task-kind')).toHaveValue('');

    await calibrateAndQuantize(
      page,
      ['chelsea.png', 'coffee.png'].map((n) => imageFromFixture(`photos/${n}`)),
      'unit',
      'XINT8',
    );
    await page.getByTestId('evaluate-button').click();
    await expect(page.getByTestId('eval-result')).toBeVisible({ timeout: 90_000 });
    // No head: the output figures only, never a task number; the prompt stays.
    await expect(page.getByTestId('eval-task')).toHaveCount(0);
    await expect(page.getByTestId('task-unrecognised')).toBeVisible();
    await shoot(page, 'task-head', info.outputPath('task-unrecognised-1440.png'));
    await page.setViewportSize({ width: 900, height: 900 });
    await shoot(page, 'task-head', info.outputPath('task-unrecognised-900.png'));
    await page.setViewportSize({ width: 1440, height: 900 });

    // A decoder these outputs cannot be read as: refused with the reason.
    await page.getByTestId('task-kind').selectOption('classify');
    await expect(page.getByTestId('task-refusal')).toContainText('reads one output [1, classes]');
    await expect(head).toHaveAttribute('data-state', 'unrecognised');
    // One they can: the figures of the evaluation already run, read through it.
    await page.getByTestId('task-kind').selectOption('text');
    await expect(head).toHaveAttribute('data-state', 'chosen');
    await expect(page.getByTestId('eval-task')).toHaveAttribute('data-task', 'text');
    await page.getByTestId('task-kind').selectOption('none');
    await expect(page.getByTestId('eval-task')).toHaveCount(0);
  });
});
