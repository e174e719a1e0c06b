/**
 * The evaluation screen names the samples on which the quantized output collapsed to all zeros, beside the cosine
 * headlines, from the core's count that the CLI prints ("quantized output is all zeros on N of M samples"): a MatMul
 * built in code (e2e/builders/collapsingOutputModel.ts), calibrated and judged on one bright and two faint .npy
 * samples, has its quantized output all zeros on the two faint ones; the CLI on the model the page wrote prints the
 * same line, and the page's HTML report shows it under its cosine cards.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  calibrateAndQuantizeTensors,
  dropFiles,
  evaluateAndWait,
  expect,
  expectSummaryOf,
  fileAt,
  openStudio,
  runBuilder,
  test,
} from './support.ts';

test('a quantized output all zeros on 2 of 3 samples is counted beside the cosine, as the CLI prints it', async ({
  page,
}, info) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const dir = info.outputPath('collapse');
  runBuilder('collapsingOutputModel', dir);
  const data = path.join(dir, 'data');
  await openStudio(page);
  await dropFiles(page.getByTestId('drop-zone'), fileAt(path.join(dir, 'collapse.onnx')));
  await expectSummaryOf(page, 'collapse.onnx');
  await calibrateAndQuantizeTensors(page, data, 'XINT8');
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
  const quantPath = path.join(dir, 'collapse.quant.onnx');
  await download.saveAs(quantPath);

  await page.getByTestId('eval-layers-toggle').uncheck();
  await evaluateAndWait(page);
  const note = 'quantized output is all zeros on 2 of 3 samples (cosine counts each as 0)';
  for (const id of ['eval-default-all-zero', 'eval-all-zero']) {
    const shown = page.getByTestId(id);
    await expect(shown).toHaveText(`⚠${note}`);
    await expect(shown.locator('[data-output="y"]')).toHaveAttribute('data-samples', '2');
    await expect(shown.locator('[data-output="y"]')).toHaveAttribute('data-of', '3');
  }
  await expect(page.getByTestId('eval-mean-cosine')).toHaveText(/^0\.33/);

  // The CLI on the model the page wrote and the same samples prints the same count.
  const cli = spawnSync(
    process.execPath,
    [
      path.resolve(import.meta.dirname, '../bin/qstudio.js'),
      'evaluate',
      path.join(dir, 'collapse.onnx'),
      quantPath,
      '--data',
      data,
    ],
    { encoding: 'utf8' },
  );
  expect(cli.status, cli.stderr).toBe(0);
  expect(cli.stdout.split('\n').filter((l) => l === note)).toHaveLength(2);

  // The HTML report says it under both cosine cards too.
  const [report] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-eval-html').click()]);
  await report.saveAs(path.join(dir, 'report.html'));
  const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
  expect(html.split(`data-all-zero="2/3">⚠ ${note}</div>`)).toHaveLength(3);

  const facts = page.getByTestId('eval-result').locator('dl.facts');
  await facts.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('all-zero-1440.png') });
  await page.setViewportSize({ width: 900, height: 900 });
  await facts.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('all-zero-900.png') });
});
