/**
 * The ladder under a time budget as a user meets it on a model the ladder was not tuned for (issue 36 points 1–3):
 * UltraFace with four photos, a PSNR target no rung reaches and a 15-second budget. The card's number fields keep
 * what was typed and say what is wrong; the prior costs show before the start; the climb ends on its budget with the
 * rungs that did not fit listed; each rung says why it came and what it was estimated at; at 900 px "Use this model"
 * is on screen without scrolling the table sideways; the best model so far is taken by keyboard, downloads and runs in
 * onnxruntime-node at its default options and at 'basic'.
 */
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';
import { dropFiles, expect, imageFromFixture, mnistRunsInNode, openWithModel, test } from './support.ts';
import { setUpUnreachableMnistClimb } from './mnistClimb.ts';

const PHOTOS = ['astronaut.png', 'chelsea.png', 'coffee.png', 'grace_hopper.jpg'].map((n) =>
  imageFromFixture(`photos/${n}`),
);

/** The downloaded UltraFace model gives finite scores and boxes for a grey image at `level`. */
async function ultrafaceRuns(bytes: Uint8Array, level: 'all' | 'basic'): Promise<void> {
  const session = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: level });
  const out = await session.run({
    [session.inputNames[0]]: new ort.Tensor('float32', new Float32Array(3 * 240 * 320).fill(0.1), [1, 3, 240, 320]),
  });
  expect(out.scores.dims).toEqual([1, 4420, 2]);
  expect([...(out.boxes.data as Float32Array)].every(Number.isFinite)).toBe(true);
  await session.release();
}

test('UltraFace: fields name what is wrong, the budget ends the climb, the best model so far is one key away', async ({
  page,
}, info) => {
  test.setTimeout(240_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await openWithModel(page, 'ultraface-rfb-320.onnx');
  const card = page.getByTestId('recover-card');
  await dropFiles(page.getByTestId('calibration-drop'), PHOTOS);
  await expect(page.getByTestId('calibration-summary')).toHaveText('4 images');

  // Every number field keeps what was typed and says what is wrong (the share field put 1 back over 1.5, silently).
  const share = card.getByTestId('recover-sensitive-share');
  await share.fill('1.5');
  await expect(share).toHaveValue('1.5');
  await expect(share).toHaveAttribute('aria-invalid', 'true');
  await expect(card.getByTestId('recover-sensitive-share-problem')).toHaveText(
    '"1.5" is out of range: give a number from 0 (excluded) to 1, or leave it empty for every layer. Until then it stays every layer.',
  );
  await share.fill('');
  await expect(card.getByTestId('recover-sensitive-share-problem')).toHaveCount(0);
  const iterations = card.getByTestId('recover-iterations');
  await iterations.fill('2.5');
  await expect(iterations).toHaveValue('2.5');
  await expect(card.getByTestId('recover-iterations-problem')).toContainText('give a whole number of at least 1');
  await iterations.fill('100');
  await expect(card.getByTestId('recover-iterations-problem')).toHaveCount(0);
  // The keyboard still steps a number.
  await iterations.press('ArrowUp');
  await expect(iterations).toHaveValue('101');
  await iterations.press('ArrowDown');
  await expect(iterations).toHaveValue('100');

  await card.getByTestId('ladder-metric').selectOption('psnr');
  const target = card.getByTestId('ladder-value');
  await target.fill('100');
  const budget = card.getByTestId('ladder-time-budget');
  await budget.fill('0');
  await expect(card.getByTestId('ladder-time-budget-problem')).toContainText('"0" is not a budget');
  // A quarter of a minute: the whole climb takes about a minute here (17 rungs in 60 s at load 11), so the budget ends it.
  await budget.fill('0.25');
  await expect(card.getByTestId('ladder-prior')).toContainText('4 calibration and 4 evaluation samples');
  await expect(card.getByTestId('ladder-prior')).toContainText('(100 iterations a layer)');
  await card.getByTestId('ladder-prior').scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('budget-fields.png') });

  await card.getByTestId('ladder-button').focus();
  await page.keyboard.press('Enter');
  await expect(card.getByTestId('recover-progress-times')).toContainText('time budget 15 s');
  await expect(card).toHaveAttribute('data-recover-status', /done|cancelled/, { timeout: 150_000 });
  await expect(card.getByTestId('ladder-summary')).toContainText('The time budget ran out before reaching');
  const rows = card.getByTestId('rung-row');
  expect(await rows.count()).toBeGreaterThan(1);
  // Each rung says why it came when it did and what it was estimated at before it ran.
  await expect(rows.first().getByTestId('rung-why')).toHaveCount(1);
  await expect(rows.nth(1).getByTestId('rung-estimate')).toContainText(/^estimated /);
  await rows.nth(1).getByTestId('rung-why').locator('summary').click();
  await expect(rows.nth(1).getByTestId('rung-why')).toHaveAttribute('open', '');
  await card.screenshot({ path: info.outputPath('budget-ended-1440.png') });

  // At 900 px the table fits: "Use this model" is on screen without scrolling the table sideways.
  await page.setViewportSize({ width: 900, height: 900 });
  const scroller = card.getByTestId('rung-table').locator('xpath=..');
  const { scroll, client } = await scroller.evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));
  expect(scroll).toBeLessThanOrEqual(client + 1);
  const use = rows.first().getByTestId('rung-use');
  await use.scrollIntoViewIfNeeded();
  await expect(use).toBeInViewport({ ratio: 1 });
  await page.screenshot({ path: info.outputPath('budget-ended-900.png') });

  // The best model so far, by keyboard; it downloads and runs in onnxruntime-node at 'all' and 'basic'.
  const best = card.getByTestId('ladder-use-best');
  await best.focus();
  await page.keyboard.press('Enter');
  await expect(best).toHaveText(/^In use: /);
  const [d] = await Promise.all([page.waitForEvent('download'), card.getByTestId('recover-download').click()]);
  const bytes = new Uint8Array(fs.readFileSync((await d.path())!));
  await ultrafaceRuns(bytes, 'all');
  await ultrafaceRuns(bytes, 'basic');
  await card.screenshot({ path: info.outputPath('best-in-use-900.png') });
});

test('YOLOX-nano: a budget shorter than the first rung still ends with that rung measured and offered', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1200, height: 900 });
  await openWithModel(page, 'yolox-nano.onnx');
  const card = page.getByTestId('recover-card');
  await dropFiles(page.getByTestId('calibration-drop'), PHOTOS.slice(0, 3));
  await expect(page.getByTestId('calibration-summary')).toHaveText('3 images');
  await card.getByTestId('ladder-value').fill('0.9999');
  await card.getByTestId('ladder-time-budget').fill('0.01'); // 0.6 s: no rung fits
  await card.getByTestId('ladder-button').click();
  await expect(card).toHaveAttribute('data-recover-status', 'done', { timeout: 90_000 });
  // The deadline waits for the first rung (before, it stopped it: "no rung could be measured", no model).
  await expect(card.getByTestId('rung-row')).toHaveCount(1);
  await expect(card.getByTestId('rung-row').getByTestId('rung-error')).toHaveCount(0);
  await expect(card.getByTestId('ladder-summary')).toContainText('The time budget ran out before reaching');
  await expect(card.getByTestId('ladder-use-best')).toHaveText('Use the best model so far: XINT8');
});

test('mnist: after the recovery worker crashes mid-climb, the best model so far is rebuilt in a new worker, downloads and runs', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1200, height: 900 });
  const card = await setUpUnreachableMnistClimb(page, PHOTOS.slice(0, 3));
  await card.getByTestId('ladder-button').click();
  await expect(card.getByTestId('rung-row')).toHaveCount(2, { timeout: 90_000 });
  // The worker dies (as out of memory would): an error thrown outside any call reaches the page as the worker's error.
  const worker = page.workers().find((w) => /recovery/.test(w.url()));
  expect(worker).toBeDefined();
  await worker!.evaluate(() =>
    setTimeout(() => {
      throw new Error('simulated crash');
    }),
  );
  await expect(card.getByTestId('recover-error')).toContainText('stopped', { timeout: 30_000 });
  // The climb went with the worker; its report is written from what the page kept of each finished rung.
  const [report] = await Promise.all([page.waitForEvent('download'), card.getByTestId('ladder-report').click()]);
  const html = fs.readFileSync((await report.path())!, 'utf8');
  expect(report.suggestedFilename()).toMatch(/\.ladder\.report\.html$/);
  expect(html).toContain('took its rungs&#39; models with it');
  const labels = await card
    .getByTestId('rung-row')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-rung-label')!));
  expect(labels.length).toBeGreaterThanOrEqual(2);
  for (const label of labels) expect(html).toContain(label.replaceAll('&', '&amp;'));
  const best = card.getByTestId('ladder-use-best');
  await expect(best).toHaveText(/^Use the best model so far: /);
  await expect(card.getByTestId('ladder-rebuild-note')).toContainText('The worker that measured it stopped');
  await best.focus();
  await page.keyboard.press('Enter');
  await expect(best).toHaveText(/^In use: /, { timeout: 90_000 });
  await expect(card.getByTestId('ladder-rebuild-note')).toHaveCount(0);
  const [d] = await Promise.all([page.waitForEvent('download'), card.getByTestId('recover-download').click()]);
  const bytes = new Uint8Array(fs.readFileSync((await d.path())!));
  await mnistRunsInNode(bytes, 'all');
  await mnistRunsInNode(bytes, 'basic');
});
