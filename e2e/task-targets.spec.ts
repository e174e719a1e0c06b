/**
 * Task targets in the page's exclusion search and mixed precision, in a real Chromium (issue 31): UltraFace's
 * recognised head reads the boxes; "Suggest exclusions" aims at mAP@0.5 of the boxes (every step measured with the
 * figure beside the cosine), and the mixed-precision search aims at it on the calibration images (its line names
 * the metric). The same target control as the ladder's; a task target with "no task" chosen is refused by name.
 */
import { calibrateAndQuantize, expect, imageFromFixture, openWithModel, test } from './support.ts';
import type { Page } from '@playwright/test';

const PHOTOS = ['face.png', 'grace_hopper.jpg'].map((n) => imageFromFixture(`photos/${n}`));

async function shoot(page: Page, target: string, file: string): Promise<void> {
  await page.getByTestId(target).scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.screenshot({ path: file });
}

test('UltraFace: Suggest exclusions aims at mAP@0.5:0.95 and mixed precision at mAP@0.5 through the task head', async ({
  page,
}, info) => {
  test.setTimeout(300_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openWithModel(page, 'ultraface-rfb-320.onnx');
  await expect(page.getByTestId('task-head')).toHaveAttribute('data-state', 'suggested');
  await calibrateAndQuantize(page, PHOTOS, 'ultraface', 'XINT8');

  // The exclusion search: the ladder's target choices, a task figure through the head.
  const card = page.getByTestId('suggest-card');
  const metric = card.getByTestId('suggest-metric');
  await expect(metric.locator('option')).toHaveText([
    'output cosine',
    'PSNR (dB)',
    'top-1 agreement',
    'sequences decoded alike (CTC)',
    'decisions alike (a probability at 0.5)',
    'task: mAP@0.5 of the boxes',
    'task: mAP@0.5:0.95 of the boxes',
    'task: mIoU of the masks',
  ]);
  await metric.selectOption('map');
  await expect(card.getByTestId('suggest-target')).toHaveValue('0.8');
  await expect(card.getByTestId('suggest-task-head')).toContainText(
    'through the task head of step 6: scores "scores" + boxes "boxes"',
  );
  await card.getByTestId('suggest-target').fill('1');
  await card.getByTestId('suggest-steps').fill('1');
  await card.getByTestId('suggest-button').click();
  await expect(card).toHaveAttribute('data-suggest-status', 'done', { timeout: 180_000 });
  const figures = card.getByTestId('suggest-step-figure');
  // mAP@0.5:0.95 of XINT8's boxes is under 1: the search measures a step.
  await expect(figures).toHaveCount(2);
  await expect(figures.first()).toHaveText(/^[01]\.\d{5}$/);
  const start = Number(await figures.first().textContent());
  expect(start).toBeGreaterThanOrEqual(0);
  expect(start).toBeLessThanOrEqual(1);
  await expect(card.getByTestId('suggest-outcome')).toContainText('the target task: mAP@0.5:0.95 of the boxes 1');
  await expect(card.getByTestId('suggest-best-figure')).toHaveText(/^[01]\.\d{5}$/);
  await shoot(page, 'suggest-card', info.outputPath('suggest-map-1440.png'));
  await page.setViewportSize({ width: 900, height: 900 });
  await shoot(page, 'suggest-card', info.outputPath('suggest-map-900.png'));
  await page.setViewportSize({ width: 1440, height: 900 });

  // Mixed precision aims at the same figure on the calibration images (an aim the 8-bit model meets: one measurement).
  const recover = page.getByTestId('recover-card');
  await recover.getByTestId('recover-mixed').check();
  await recover.getByTestId('mixed-metric').selectOption('map50');
  await expect(recover.getByTestId('mixed-task-head')).toContainText('Measured on the calibration images');
  await recover.getByTestId('mixed-target').fill('0.1');
  await recover.getByTestId('recover-finetune').selectOption('none');
  await recover.getByTestId('recover-button').click();
  await expect(recover).toHaveAttribute('data-recover-status', 'done', { timeout: 180_000 });
  const mixed = recover.getByTestId('rung-mixed');
  await expect(mixed).toHaveAttribute('data-metric', 'map50');
  await expect(mixed).toContainText(/mixed precision: task: mAP@0\.5 of the boxes [01]\.\d{4} → [01]\.\d{4}/);
  await expect(mixed).toContainText('aim reached');
  await shoot(page, 'recover-mixed-options', info.outputPath('mixed-map50-1440.png'));
  await page.setViewportSize({ width: 900, height: 900 });
  await shoot(page, 'recover-mixed-options', info.outputPath('mixed-map50-900.png'));
  await page.setViewportSize({ width: 1440, height: 900 });

  // "No task": a task target is refused by name, nothing measured.
  await page.getByTestId('task-kind').selectOption('none');
  await card.getByTestId('suggest-button').click();
  await expect(card.getByTestId('suggest-error')).toHaveAttribute('data-error-name', 'LadderTargetError');
  await expect(card.getByTestId('suggest-error')).toContainText('choose the task head first');
});
