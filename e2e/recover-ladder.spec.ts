/**
 * Accuracy recovery in a real Chromium: mnist with three photos (preprocess 'unit'). AdaRound with a few
 * iterations in the recovery worker (onnxruntime-web) draws its loss curves, and the model it made
 * downloads and runs in onnxruntime-node. Then the ladder on one format with an unreachable target: every
 * rung is listed with its numbers, a rung is picked and downloaded, and the ladder report names the rungs.
 */
import fs from 'node:fs';
import { dropFiles, expect, imageFromFixture, mnistRunsInNode, openWithModel, test } from './support.ts';
import type { Page } from '@playwright/test';

const PHOTOS = ['face.png', 'grace_hopper.jpg', 'astronaut.png'].map((n) => imageFromFixture(`photos/${n}`));

async function download(page: Page, testId: string): Promise<{ name: string; bytes: Buffer }> {
  const [d] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return { name: d.suggestedFilename(), bytes: fs.readFileSync((await d.path())!) };
}

test('mnist: AdaRound draws its loss curves and downloads a model that runs; the ladder lists every rung and one is picked', async ({
  page,
}, info) => {
  test.setTimeout(120_000);
  await openWithModel(page, 'mnist.onnx');
  const card = page.getByTestId('recover-card');
  await expect(card.getByTestId('recover-no-data')).toBeVisible(); // no calibration images yet: it says so
  await expect(card.getByTestId('recover-button')).toBeDisabled();
  await dropFiles(page.getByTestId('calibration-drop'), PHOTOS);
  await expect(page.getByTestId('calibration-summary')).toHaveText('3 images');
  await page.getByTestId('preprocess-preset').selectOption('unit');

  // One configuration: AdaRound, few iterations, chosen with the keyboard.
  await card.getByTestId('recover-finetune').selectOption('adaround');
  await card.getByTestId('recover-iterations').fill('20');
  await card.getByTestId('recover-button').focus();
  await page.keyboard.press('Enter');
  await expect(card).toHaveAttribute('data-recover-status', 'done', { timeout: 60_000 });
  await expect(card.getByTestId('loss-curve').locator('path')).toHaveAttribute(
    'd',
    /^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+)+$/,
  );
  await expect(card.getByTestId('layer-losses').locator('circle')).not.toHaveCount(0);
  await expect(card.getByTestId('rung-row')).toHaveCount(1);
  expect(Number(await card.getByTestId('rung-score').textContent())).toBeGreaterThan(0.9);
  // Which runtime ran the fine-tuning, and why there (issue 34).
  const ranOn = card.getByTestId('recover-ran-on');
  await expect(ranOn).toHaveAttribute('data-backend', /^wasm/);
  await expect(ranOn).toContainText(
    /^Fine-tuning \(calibration, tuning, measurement\) ran on WebAssembly, \d+ threads?: fine-tuning quantizes and runs the quantized model at every step; quantized models run on the CPU/,
  );
  await page.setViewportSize({ width: 1440, height: 900 });
  await ranOn.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('recover-ran-on-1440.png') });
  await page.setViewportSize({ width: 900, height: 900 });
  await ranOn.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('recover-ran-on-900.png') });
  await page.setViewportSize({ width: 1440, height: 900 });
  await card.getByTestId('rung-use').click();
  await expect(card.getByTestId('rung-adopted')).toBeVisible();
  const tuned = await download(page, 'recover-download');
  expect(tuned.name).toBe('mnist.quant.onnx');
  await mnistRunsInNode(new Uint8Array(tuned.bytes));
  await expect(page.getByTestId('quantize-result')).toBeVisible(); // the run's result is the tuned model now

  // The ladder on the current preset only, a target no rung can meet, few iterations.
  await card.getByTestId('recover-iterations').fill('3');
  await card.getByTestId('ladder-metric').selectOption('psnr');
  await card.getByTestId('ladder-value').fill('500');
  await card.getByTestId('ladder-all-formats').uncheck();
  await card.getByTestId('ladder-exclusions').uncheck();
  // 8 bits first by default; the fastest order (the one whose rungs are listed below) is one keyboard step away.
  const order = card.getByTestId('ladder-order');
  await expect(order).toHaveValue('eight-bit-first');
  await order.focus();
  await expect(order).toBeFocused();
  await order.selectOption('fastest');
  await card.getByTestId('ladder-button').click();
  await expect(card.getByTestId('recover-progress-text')).toContainText('Rung');
  await expect(card).toHaveAttribute('data-recover-status', 'done', { timeout: 90_000 });
  const rows = card.getByTestId('rung-row');
  // Order fastest: XINT8 (MNIST has no pair for CLE: no CLE rung), + AdaRound, + AdaQuant (the closest configuration
  // is fine-tuned even when out of reach), then mixed precision inside the budget, the same precisions with bias
  // correction (the page's climb gets that rung as qstudio ladder does, since the one ladder wiring), and its fine-tuned rung.
  await expect(rows).toHaveCount(6);
  const labels = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-rung-label')));
  expect(labels[0]).toBe('XINT8');
  expect(labels[1]).toMatch(/AdaRound$/);
  expect(labels[2]).toMatch(/AdaQuant$/);
  expect(labels[3]).toMatch(/^Mixed precision \(/);
  expect(labels[4]).toMatch(/^Mixed precision \(.*\) \+ bias correction$/);
  expect(labels[5]).toMatch(/^Mixed precision \(.*\) (\+ bias correction )?\+ Ada(Round|Quant)/);
  await expect(card.getByTestId('ladder-summary-order')).toContainText('Order: fastest');
  // Each rung says on the card why it came when it did, and the cost estimated before it ran (issue 36 points 2-3).
  await expect(card.getByTestId('rung-why')).toHaveCount(6);
  await rows.first().getByTestId('rung-why').locator('summary').click();
  await expect(rows.first().getByTestId('rung-why')).toHaveText(/^Why at this point\s*screening XINT8/);
  await expect(rows.nth(3).getByTestId('rung-why')).toContainText('mixed precision from the best 8-bit rung');
  await expect(card.getByTestId('rung-estimate')).toHaveCount(6);
  await expect(rows.nth(1).getByTestId('rung-estimate')).toHaveText(/^estimated \d/);
  // The rung CLE would have been (MNIST has no pair) is listed as not tried, with why.
  await card.getByTestId('ladder-skipped').locator('summary').click();
  await expect(card.getByTestId('ladder-skipped')).toContainText('CLE finds no pair');
  // MNIST's XINT8 weights could saturate x86 kernels without VNNI, but the page's judge (onnxruntime-web's WASM
  // kernels) does not saturate (measured, core/runtime/wasmInt8Kernels.ts): that rung is listed, with why.
  await expect(card.getByTestId('ladder-skipped')).toContainText(
    "XINT8 + saturation-safe weights: onnxruntime-web's WASM",
  );
  const scores = await card.getByTestId('rung-score').allTextContents();
  const measured = scores.filter((s) => /^\d+\.\d{2} dB$/.test(s));
  expect(measured).toHaveLength(6);
  await expect(card.getByTestId('ladder-summary')).toContainText('No rung reached');
  // Which tensors block the target and why, from the mixed-precision rung's own measurements.
  const shortfall = card.getByTestId('ladder-shortfall');
  await expect(shortfall).toContainText('Why the target was not met');
  await expect(shortfall).toContainText(/\d+ activation pairs, \d+ weights at 16 bits: held in \d/);
  await expect(shortfall).toContainText(/every activation at 16 bits \(\d+ pairs/);
  await expect(shortfall).toContainText(/every weight at 16 bits \(\d+\), activations at 8: held in \d/);
  await expect(shortfall).toContainText('At 16 bits in the largest set measured, and still short');
  await expect(card.getByTestId('rung-chosen')).toHaveCount(1);

  await rows.nth(1).getByTestId('rung-use').click();
  await expect(rows.nth(1).getByTestId('rung-adopted')).toBeVisible();
  const picked = await download(page, 'recover-download');
  await mnistRunsInNode(new Uint8Array(picked.bytes));
  expect(picked.bytes.equals(tuned.bytes)).toBe(false);

  const report = await download(page, 'ladder-report');
  expect(report.name).toBe('mnist.ladder.report.html');
  const html = report.bytes.toString('utf8');
  for (const label of labels) expect(html).toContain(label!.replace(/&/g, '&amp;'));
  expect(html).toContain('data-section="ladder-shortfall"');
  expect(html).toContain('Order: fastest');

  // Cancel: a long fine-tune stops within a step and says so; the page is ready for the next run.
  await card.getByTestId('recover-iterations').fill('50000');
  await card.getByTestId('recover-button').click();
  await expect(card.getByTestId('recover-progress')).toBeVisible();
  await card.getByTestId('recover-cancel').click();
  await expect(card).toHaveAttribute('data-recover-status', 'cancelled', { timeout: 30_000 });
  await expect(card.getByTestId('recover-cancelled')).toBeVisible();
  await expect(card.getByTestId('recover-button')).toBeEnabled();
});
