/**
 * The mnist climb the ladder specs share: mnist opened, the given photos to calibrate on (read as unit-range images),
 * AdaQuant at 50,000 iterations (about a minute on its two layers), a PSNR-500 target no rung reaches, one format, no
 * exclusion search, the fastest order: a climb long enough to cancel, crash or run out of time in. Not started.
 */
import type { Locator, Page } from '@playwright/test';
import { dropFiles, expect, openWithModel, type PayloadFile } from './support.ts';

/** Sets the climb up on the recovery card and returns the card. */
export async function setUpUnreachableMnistClimb(page: Page, photos: PayloadFile[]): Promise<Locator> {
  await openWithModel(page, 'mnist.onnx');
  const card = page.getByTestId('recover-card');
  await dropFiles(page.getByTestId('calibration-drop'), photos);
  await expect(page.getByTestId('calibration-summary')).toHaveText(`${photos.length} images`);
  await page.getByTestId('preprocess-preset').selectOption('unit');
  await card.getByTestId('recover-iterations').fill('50000');
  await card.getByTestId('ladder-metric').selectOption('psnr');
  await card.getByTestId('ladder-value').fill('500');
  await card.getByTestId('ladder-all-formats').uncheck();
  await card.getByTestId('ladder-exclusions').uncheck();
  await card.getByTestId('ladder-order').selectOption('fastest');
  return card;
}
