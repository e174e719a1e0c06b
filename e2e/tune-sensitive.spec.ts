/**
 * The recovery card's sensitive-layer share in a real Chromium (issue 36 point 4): mnist with three photos, AdaRound
 * in the recovery worker (onnxruntime-web). Left empty the field takes the core's default, every layer, and the
 * rung says so; a share of 0.5 tunes only the layers adding half of the
 * measured noise, and the rung says how many of how many. The model it made runs in onnxruntime-node at default
 * options and at 'basic'.
 */
import fs from 'node:fs';
import { dropFiles, expect, imageFromFixture, mnistRunsInNode, openWithModel, test } from './support.ts';

const PHOTOS = ['face.png', 'grace_hopper.jpg', 'astronaut.png'].map((n) => imageFromFixture(`photos/${n}`));

test('mnist: the sensitive share tunes every layer when empty, and fewer layers when set', async ({ page }, info) => {
  test.setTimeout(120_000);
  await openWithModel(page, 'mnist.onnx');
  const card = page.getByTestId('recover-card');
  await dropFiles(page.getByTestId('calibration-drop'), PHOTOS);
  await expect(page.getByTestId('calibration-summary')).toHaveText('3 images');
  await page.getByTestId('preprocess-preset').selectOption('unit');
  await card.getByTestId('recover-finetune').selectOption('adaround');
  await card.getByTestId('recover-iterations').fill('20');

  const share = card.getByTestId('recover-sensitive-share');
  await expect(share).toHaveValue('');
  await expect(share).toHaveAttribute('placeholder', '1');
  await expect(card.getByTestId('recover-sensitive-rule')).toHaveText(
    'every layer (the default: no subset measured at least as good everywhere)',
  );
  await card.getByTestId('recover-button').click();
  await expect(card).toHaveAttribute('data-recover-status', 'done', { timeout: 60_000 });
  const rule = card.getByTestId('rung-sensitive');
  await expect(rule).toHaveAttribute('data-why', 'default');
  await expect(rule).toHaveText('tuned every layer (the default)');
  const every = Number(/over (\d+) layers/.exec((await card.getByTestId('rung-row').textContent())!)![1]);
  expect(every).toBeGreaterThan(1);

  await share.fill('0.5');
  await expect(card.getByTestId('recover-sensitive-rule')).toHaveText('the layers holding 50 % of the added noise');
  await card.getByTestId('recover-button').click();
  await expect(card).toHaveAttribute('data-recover-status', 'done', { timeout: 60_000 });
  await expect(rule).toHaveAttribute('data-why', 'given');
  await expect(rule).toHaveText(
    new RegExp(
      `^tuned \\d+ of ${every} layers, those adding 50 % of the measured noise \\(as set; the top tenth of layers add \\d+ % of it\\)$`,
    ),
  );
  const tuned = Number(/tuned (\d+) of/.exec((await rule.textContent())!)![1]);
  expect(tuned).toBeGreaterThan(0);
  expect(tuned).toBeLessThan(every);
  await page.setViewportSize({ width: 1440, height: 900 });
  await share.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('sensitive-share-field.png') });
  await rule.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('sensitive-share-rung.png') });

  await card.getByTestId('rung-use').click();
  await expect(card.getByTestId('rung-adopted')).toBeVisible();
  const [d] = await Promise.all([page.waitForEvent('download'), card.getByTestId('recover-download').click()]);
  const bytes = new Uint8Array(fs.readFileSync((await d.path())!));
  await mnistRunsInNode(bytes, 'all');
  await mnistRunsInNode(bytes, 'basic');

  // Cleared, the field is the default again.
  await share.fill('');
  await expect(card.getByTestId('recover-sensitive-rule')).toHaveText(
    'every layer (the default: no subset measured at least as good everywhere)',
  );
});
