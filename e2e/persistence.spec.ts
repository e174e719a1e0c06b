/**
 * Nothing lost on a reload: the model, the calibration images, the settings and the exclusion picks
 * come back from IndexedDB, and "New session" forgets them. Each test has a fresh browser context, so a
 * fresh IndexedDB: other specs never see what this one saved.
 */
import type { Page } from '@playwright/test';
import { dropFiles, expect, imageFromFixture, openWithModel, test } from './support.ts';

/** What the page has saved so far (the writes are debounced and asynchronous). */
function saved(page: Page) {
  return page.evaluate(
    () =>
      new Promise<{ model: string | null; exclusions: number; images: number; preset: string | null }>(
        (resolve, reject) => {
          const open = indexedDB.open('quant-studio', 1);
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const db = open.result;
            if (!db.objectStoreNames.contains('session'))
              return resolve({ model: null, exclusions: 0, images: 0, preset: null });
            const store = db.transaction('session').objectStore('session');
            const model = store.get('model');
            const choices = store.get('choices');
            const data = store.get('data');
            store.transaction.oncomplete = () => {
              resolve({
                model: model.result?.file?.name ?? null,
                exclusions: choices.result?.exclusions?.length ?? 0,
                images: data.result?.images?.length ?? 0,
                preset: choices.result?.settings?.preset ?? null,
              });
              db.close();
            };
          };
        },
      ),
  );
}

test.describe('the session survives a reload', () => {
  test('model, image, settings and picks come back after a reload; New session empties the page', async ({ page }) => {
    await openWithModel(page, 'ultraface-rfb-320.onnx');
    const panel = page.getByTestId('exclusion-panel');
    await expect(panel.getByTestId('exclusion-empty')).toBeVisible();
    // UltraFace names none of its nodes: Conv_3 is the studio's id for its second Conv.
    await panel.getByTestId('add-node-input').fill('Conv_3');
    await panel.getByTestId('add-node-button').click();
    await panel.getByTestId('add-optype-select').selectOption('Softmax');
    await panel.getByTestId('add-optype-button').click();
    await expect(panel.getByTestId('exclusion-entry')).toHaveCount(2);
    await dropFiles(page.getByTestId('calibration-drop'), [imageFromFixture('photos/camera.png')]);
    await expect(page.getByTestId('calibration-summary')).toHaveText('1 image');
    await page.getByTestId('quant-preset').selectOption('A8W8');

    await expect
      .poll(() => saved(page))
      .toEqual({ model: 'ultraface-rfb-320.onnx', exclusions: 2, images: 1, preset: 'A8W8' });
    await page.reload();

    await expect(page.getByTestId('model-summary').getByTestId('summary-file-name')).toHaveText(
      'ultraface-rfb-320.onnx',
    );
    await expect(page.getByTestId('session-restored')).toContainText('ultraface-rfb-320.onnx');
    const entries = page.getByTestId('exclusion-panel').getByTestId('exclusion-entry');
    await expect(entries).toHaveCount(2);
    await expect(entries.getByTestId('exclusion-entry-name')).toHaveText(['Conv_3', 'All Softmax']);
    await expect(entries.nth(0)).toHaveAttribute('data-node-count', '1');
    await expect(page.getByTestId('calibration-summary')).toHaveText('1 image');
    await expect(page.getByTestId('quant-preset')).toHaveValue('A8W8');

    await page.getByTestId('new-session').click();
    await page.getByTestId('new-session-confirm-button').click();
    await expect(page.getByTestId('drop-zone')).toBeVisible();
    await expect(page.getByTestId('model-summary')).toHaveCount(0);
    await expect(page.getByTestId('session-restored')).toHaveCount(0);
    await expect.poll(() => saved(page)).toEqual({ model: null, exclusions: 0, images: 0, preset: null });
    await page.reload();
    await expect(page.getByTestId('drop-zone')).toBeVisible();
    await expect(page.getByTestId('session-restored')).toHaveCount(0);
    await expect(page.getByTestId('model-summary')).toHaveCount(0);
  });

  test('a fresh visit starts empty and says nothing about a previous session', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByTestId('drop-zone')).toBeVisible();
    await expect(page.getByTestId('session-bar')).toHaveAttribute('data-restoring', 'false');
    await expect(page.getByTestId('session-restored')).toHaveCount(0);
    await expect(page.getByTestId('new-session')).toHaveCount(0);
  });
});
