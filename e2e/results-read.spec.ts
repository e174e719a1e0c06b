/**
 * The sample's results, read for the user (issue 29, points 4 and 6): the stat tiles keep a value on one
 * line, names wrap only at their separators, the largest error jump reads with the chips' sign; each figure
 * is read against its target (Quark's thresholds), the next step is one click (here the measured exclusion
 * search: the sample's error jumps are at elementwise nodes), and a second run's change from the first is read.
 * One sample run (about 25 s) serves every check.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, openStudio, test } from './support.ts';

/** Where the text inside `el` wraps: the character before each line break (a space or a separator is a clean break). */
function wrapPoints(el: Locator): Promise<string[]> {
  return el.evaluate((root) => {
    const breaks: string[] = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let lastTop: number | null = null;
    let lastChar = '';
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (let i = 0; i < text.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (!rect || text[i] === ' ') {
          lastChar = text[i];
          continue;
        }
        if (lastTop !== null && rect.top > lastTop + 4) breaks.push(`${lastChar}|${text[i]}`);
        lastTop = rect.top;
        lastChar = text[i];
      }
    }
    return breaks;
  });
}

const cleanBreak = (b: string) => /^[ ./_:\-(]\|/.test(b) || /\|[ (]/.test(b);

async function runSample(page: Page): Promise<void> {
  await openStudio(page);
  await page.getByTestId('quantize-sample-button').click();
  await expect(page.getByTestId('sample-run')).toHaveAttribute('data-status', 'done', { timeout: 200_000 });
  await expect(page.getByTestId('eval-result')).toBeVisible();
}

test('the sample report: values on one line, names broken at separators, the jump signed as the chips; each figure against its target, the change from the previous run, the next step in one click', async ({
  page,
}) => {
  test.setTimeout(360_000);
  await page.setViewportSize({ width: 900, height: 900 });
  await runSample(page);
  const result = page.getByTestId('eval-result');
  // Each tile's value is one line: its box is no taller than one line of its own font.
  for (const value of await result.locator('.facts__big').all()) {
    const { height, line } = await value.evaluate((e) => ({
      height: e.getBoundingClientRect().height,
      line: parseFloat(getComputedStyle(e).lineHeight) || parseFloat(getComputedStyle(e).fontSize) * 1.3,
    }));
    expect(height, `${await value.textContent()} fits one line`).toBeLessThanOrEqual(line + 2);
  }
  // Names in the tiles, the output table and the model's outputs break only at a separator.
  const named = [
    result.locator('.facts__sub'),
    page.getByTestId('eval-outputs').locator('td.tensor-table__name'),
    page.getByTestId('model-summary').getByTestId('tensor-name'),
  ];
  for (const group of named) {
    for (const el of await group.all()) {
      const breaks = await wrapPoints(el);
      expect(
        breaks.filter((b) => !cleanBreak(b)),
        `${await el.textContent()} breaks mid-word`,
      ).toEqual([]);
    }
  }
  // The largest error jump: the tile and the first chip say the same signed figure.
  const tile = (await page.getByTestId('eval-largest-jump').textContent())!;
  expect(tile).toMatch(/^−\d+\.\d{2} dB$/);
  const chips = await page.getByTestId('eval-jump').allTextContents();
  expect(chips).toContain(tile);

  // Read for the user: each figure against its target, the change from the previous run, the next step in one click.
  // The sample's own settings (A8W8 per channel, Sequential) meet the cosine target; its PSNR does not.
  await expect(page.getByTestId('sample-verdict')).toHaveText("meets the target ≥ 0.98 (Quark's threshold)");
  const reading = page.getByTestId('result-reading');
  const cosine = reading.getByTestId('reading-cosine');
  await expect(cosine).toHaveAttribute('data-meets', 'true');
  const psnr = reading.getByTestId('reading-psnr');
  await expect(psnr).toHaveAttribute('data-meets', 'false');
  await expect(psnr.getByTestId('reading-verdict')).toContainText("is below the target ≥ 30 dB (Quark's threshold)");
  await expect(cosine.getByTestId('reading-change')).toContainText('The first evaluation of this model');
  // The next step aims at the figure that is short (it offered a search to "cosine ≥ 0.98", already met).
  const first = reading.getByTestId('next-step');
  await expect(first).not.toContainText('cosine ≥');
  await expect(first.getByTestId('next-step-ladder')).toHaveText('Climb the ladder to PSNR ≥ 30 dB');

  // Another run (per tensor): the change from the previous one is read, and the cosine is now short.
  await page.getByTestId('per-channel').uncheck();
  await page.getByTestId('quantize-button').click();
  await expect(page.getByTestId('eval-stale')).toBeVisible({ timeout: 60_000 }); // the new model is there; the evaluation is of the old one
  await page.getByTestId('evaluate-button').click();
  await expect(cosine.getByTestId('reading-change')).toHaveText(/^[+−]0\.\d{4} since the previous run \(A8W8\)\.$/, {
    timeout: 150_000,
  });
  expect(await cosine.getByTestId('reading-change').textContent()).not.toMatch(/^[+−±]0\.0000 /);
  await expect(cosine).toHaveAttribute('data-meets', 'false');

  // The next step, one click: the sample's error jumps are at elementwise nodes (keeping one float changes nothing), so the measured search.
  const next = reading.getByTestId('next-step');
  await expect(next).toHaveAttribute('data-step', 'search');
  await expect(next.getByTestId('next-step-ladder')).toBeEnabled();
  await next.getByTestId('next-step-search').click();
  await expect(page.getByTestId('suggest-card')).toHaveAttribute('data-suggest-status', 'running');
  await expect(page.getByTestId('suggest-target')).toHaveValue('0.98');
  await page.getByTestId('suggest-progress-cancel').click();
  await expect(page.getByTestId('suggest-card')).toHaveAttribute('data-suggest-status', 'cancelled');
  // The cancelled search does not hold the evaluation up: Evaluate runs again to its result.
  await page.getByTestId('evaluate-button').click();
  await expect(page.getByTestId('evaluate-card')).toHaveAttribute('data-eval-status', 'running');
  await expect(page.getByTestId('evaluate-card')).toHaveAttribute('data-eval-status', 'done', { timeout: 120_000 });
});
