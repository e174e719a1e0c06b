/**
 * Cancel on the ladder keeps what it measured (issue 29 point 2): MNIST climbed toward a target no rung can meet, with a
 * fine-tuning rung that runs for a minute; the progress comes into view and says rung n of N with a moving bar, the
 * elapsed time and an estimate. Cancelled during fine-tuning, every finished rung is still usable ("Use this model"
 * gives a model that runs in onnxruntime-node) and the ladder's report downloads and lists the rungs.
 */
import fs from 'node:fs';
import { expect, imageFromFixture, mnistRunsInNode, test } from './support.ts';
import { setUpUnreachableMnistClimb } from './mnistClimb.ts';

const PHOTOS = ['face.png', 'grace_hopper.jpg', 'astronaut.png'].map((n) => imageFromFixture(`photos/${n}`));

test('mnist: a ladder cancelled while fine-tuning keeps every finished rung usable and its report', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const card = await setUpUnreachableMnistClimb(page, PHOTOS);
  // A budget that is not one says so beside the field, and keeps what the user typed (it read 1 again over a 0, silently).
  const budget = card.getByTestId('ladder-time-budget');
  const problem = card.getByTestId('ladder-time-budget-problem');
  for (const bad of ['0', '-3', 'ten']) {
    await budget.fill(bad);
    await expect(budget).toHaveValue(bad);
    await expect(budget).toHaveAttribute('aria-invalid', 'true');
    await expect(problem).toContainText(`"${bad}" is not a budget: give minutes above zero`);
    await expect(problem).toContainText('Until then the climb keeps no budget.');
  }
  await budget.fill('30');
  // What each kind of rung is expected to cost before anything is measured, to choose a budget by (issue 36 point 2).
  await expect(card.getByTestId('ladder-prior')).toHaveText(
    /^Expected before anything is measured \([\d,]+ weights, 3 calibration and 3 evaluation samples\): a screening rung about \d+ s, fine-tuning about .+ \(50000 iterations a layer\), mixed precision up to .+, the exclusion search up to .+\. /,
  );
  await expect(problem).toHaveCount(0);
  await expect(budget).not.toHaveAttribute('aria-invalid');
  // By keyboard: Enter on the climb's button, and the focus is on Cancel (it fell to the page's top with the button
  // disabled).
  await card.getByTestId('ladder-button').focus();
  await page.keyboard.press('Enter');
  await expect(card.getByTestId('recover-cancel')).toBeFocused();

  // Progress in view, rung n of N, the times line with the budget.
  const progress = card.getByTestId('recover-progress');
  await expect(progress).toBeInViewport();
  await expect(card.getByTestId('recover-progress-rung')).toHaveText(/^Rung \d+ of at most \d+ \(/);
  await expect(card.getByTestId('recover-progress-times')).toContainText('time budget 30 min 00 s');
  // Rungs 1 (XINT8) and 2 (+ AdaRound, seconds on MNIST's two layers) measured; rung 3 (+ AdaQuant) runs for a minute.
  await expect(card.getByTestId('rung-row')).toHaveCount(2, { timeout: 60_000 });
  await expect(card.getByTestId('recover-progress-rung')).toContainText('Rung 3 of at most', { timeout: 30_000 });
  await expect(card.getByTestId('recover-progress-why')).toContainText('fine-tuning');
  await expect(card.getByTestId('recover-progress-times')).toContainText(/this rung about .* left \(estimated/);
  await expect
    .poll(async () => Number(await card.getByTestId('recover-progress-bar').getAttribute('aria-valuenow')), {
      timeout: 30_000,
    })
    .toBeGreaterThan(0);
  // Each bar says which it is: the rung in flight and the climb.
  await expect(card.getByTestId('recover-progress-bar-caption')).toHaveText(/^This rung \d+ %$/);
  await expect(card.getByTestId('recover-progress-climb-caption')).toHaveText(/^The ladder \d+ %$/);
  await page.screenshot({ path: test.info().outputPath('ladder-progress.png') });
  await page.setViewportSize({ width: 900, height: 900 });
  await progress.screenshot({ path: test.info().outputPath('ladder-progress-900.png') });
  await page.setViewportSize({ width: 1440, height: 900 });

  await card.getByTestId('recover-cancel').click();
  await expect(card).toHaveAttribute('data-recover-status', 'cancelled', { timeout: 30_000 });
  // The Cancel button is gone: focus is on what the climb left, not lost to the page.
  await expect(card.getByTestId('recover-outcome')).toBeFocused();
  await expect(card.getByTestId('recover-cancelled')).toContainText('every finished rung can still be used');
  await expect(card.getByTestId('ladder-summary')).toContainText('Cancelled before reaching');
  const first = card.getByTestId('rung-row').first();
  await expect(first).toHaveAttribute('data-rung-label', 'XINT8');
  // The rung in flight is listed as cancelled, without a model; the two before it are whole.
  await expect(card.getByTestId('rung-row')).toHaveCount(3);
  await expect(card.getByTestId('rung-row').nth(2).getByTestId('rung-error')).toHaveText(
    'cancelled while it was measured (no model)',
  );
  // The best model measured so far is offered in one step (issue 36 point 1), by keyboard too.
  const best = card.getByTestId('ladder-use-best');
  const chosen = card.locator('[data-testid="rung-row"][data-chosen="true"]');
  await expect(best).toHaveText(`Use the best model so far: ${await chosen.getAttribute('data-rung-label')}`);
  await best.focus();
  await page.keyboard.press('Enter');
  await expect(chosen.getByTestId('rung-adopted')).toBeVisible();
  await expect(best).toHaveText(/^In use: /);
  await expect(card.getByTestId('recover-adopted-note')).toHaveText(
    `The model you picked (${await chosen.getAttribute('data-rung-label')}) is the quantized model now: evaluate it below.`,
  );
  await expect(best).toBeDisabled();
  await expect(card.getByTestId('recover-error')).toHaveCount(0);
  const [model] = await Promise.all([page.waitForEvent('download'), card.getByTestId('recover-download').click()]);
  await mnistRunsInNode(fs.readFileSync((await model.path())!));

  const [report] = await Promise.all([page.waitForEvent('download'), card.getByTestId('ladder-report').click()]);
  const html = fs.readFileSync((await report.path())!, 'utf8');
  expect(html).toContain('Accuracy-recovery ladder');
  expect(html).toContain('cancelled or interrupted; the best rung measured so far is kept');
  expect(html).toContain('XINT8 + AdaRound');
  await card.screenshot({ path: test.info().outputPath('ladder-cancelled.png') });
  await page.setViewportSize({ width: 900, height: 900 });
  await card.screenshot({ path: test.info().outputPath('ladder-cancelled-900.png') });
});
