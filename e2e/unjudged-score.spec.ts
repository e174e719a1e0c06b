/**
 * A cosine target on a model with an output of one number a sample beside another (a score beside a hidden layer,
 * built in code: e2e/builders/scoreAndHiddenModel.ts): the score has no cosine, so the target leaves its decisions
 * unjudged. The exclusion search after its starting step, and the ladder after its first rung, say so in the words
 * qstudio suggest and ladder print (core unjudgedScoreNote), with the decisions measured and the decision target.
 */
import path from 'node:path';
import type { Page } from '@playwright/test';
import {
  calibrateAndQuantizeTensors,
  dropFiles,
  expect,
  expectSummaryOf,
  fileAt,
  openStudio,
  runBuilder,
  test,
} from './support.ts';

async function shoot(page: Page, target: string, file: string): Promise<void> {
  await page.getByTestId(target).scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await page.screenshot({ path: file });
}

const NOTE =
  /^note: the cosine target judges only the outputs of more than one number a sample; this model also has an output of one number a sample \(a score or probability\), which has no cosine: its decisions at 0\.5 are shown beside each (step|rung) \("decision", [01]\.\d{5} here\), and the target “decisions alike \(a probability at 0\.5\)” aims at them$/;

test('a cosine target beside a one-number score: the search and the ladder say what it leaves unjudged', async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const dir = info.outputPath('score');
  runBuilder('scoreAndHiddenModel', dir);
  const data = path.join(dir, 'data');
  await openStudio(page);
  await dropFiles(page.getByTestId('drop-zone'), fileAt(path.join(dir, 'score-and-hidden.onnx')));
  await expectSummaryOf(page, 'score-and-hidden.onnx');
  await calibrateAndQuantizeTensors(page, data, 'XINT8');

  // The search: a cosine target, one step.
  const suggest = page.getByTestId('suggest-card');
  await suggest.getByTestId('suggest-target').fill('1');
  await suggest.getByTestId('suggest-steps').fill('1');
  await suggest.getByTestId('suggest-button').click();
  await expect(suggest).toHaveAttribute('data-suggest-status', 'done', { timeout: 90_000 });
  const searchNote = suggest.getByTestId('suggest-unjudged');
  await expect(searchNote).toHaveText(NOTE);
  await expect(searchNote).toContainText('shown beside each step');
  // ... and they are: a column of the decisions, the note's figure the starting step's.
  const decisions = suggest.getByTestId('suggest-step-decision');
  await expect(decisions).toHaveCount(2);
  await expect(searchNote).toContainText(`("decision", ${await decisions.first().textContent()} here)`);
  await shoot(page, 'suggest-card', info.outputPath('suggest-unjudged-1440.png'));

  // The ladder: its first rung only (a budget no later rung fits in).
  const card = page.getByTestId('recover-card');
  await card.getByTestId('ladder-metric').selectOption('cosine');
  await card.getByTestId('ladder-value').fill('0.99999');
  await card.getByTestId('ladder-time-budget').fill('0.01');
  await card.getByTestId('ladder-button').click();
  await expect(card).toHaveAttribute('data-recover-status', 'done', { timeout: 90_000 });
  const ladderNote = card.getByTestId('ladder-unjudged');
  await expect(ladderNote).toHaveText(NOTE);
  await expect(ladderNote).toContainText('shown beside each rung');
  await expect(card.getByTestId('rung-table').locator('th')).toContainText(['decision']);
  await shoot(page, 'ladder-unjudged', info.outputPath('ladder-unjudged-1440.png'));
  await page.setViewportSize({ width: 900, height: 900 });
  await shoot(page, 'ladder-unjudged', info.outputPath('ladder-unjudged-900.png'));

  // A decision target: nothing to say.
  await card.getByTestId('ladder-metric').selectOption('decision');
  await card.getByTestId('ladder-button').click();
  await expect(card.getByTestId('ladder-summary')).toContainText('decisions alike', { timeout: 90_000 });
  await expect(card.getByTestId('rung-row').first()).toBeVisible();
  await expect(card.getByTestId('ladder-unjudged')).toHaveCount(0);
});
