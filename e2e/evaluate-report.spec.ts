/**
 * Evaluation and the report in a real Chromium: calibrate and quantize UltraFace on photos, evaluate
 * it against the float model in the evaluation worker (onnxruntime-web), read the page's numbers,
 * download the HTML report and open it in Chromium with the network off: it must show the same
 * numbers and ask for nothing. Also what a user meets: a corrupt image in an evaluation set (named as
 * it is added, not taken), an evaluation set of nothing readable, a cancel.
 */
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { calibrateAndQuantize, dropFiles, expect, imageFromFixture, openWithModel, test } from './support.ts';
import type { Page } from '@playwright/test';

const CALIBRATION = ['face.png', 'grace_hopper.jpg', 'astronaut.png', 'chelsea.png'].map((n) =>
  imageFromFixture(`photos/${n}`),
);
const CORRUPT = {
  name: 'broken.jpg',
  mimeType: 'image/jpeg',
  buffer: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251)),
};

async function quantizedUltraface(page: Page): Promise<void> {
  await openWithModel(page, 'ultraface-rfb-320.onnx');
  await calibrateAndQuantize(page, CALIBRATION, 'ultraface', 'XINT8');
}

test.describe('evaluate and report', () => {
  test('ultraface: evaluate the quantized model, download the HTML report, and it shows the same numbers offline', async ({
    page,
    browser,
  }, info) => {
    test.setTimeout(180_000);
    await quantizedUltraface(page);
    // XINT8 per tensor: some of UltraFace's weights hold same-sign code pairs past 128 (the rule of cpuKernelSafety.ts).
    await expect(page.getByTestId('report-saturation-risk')).toContainText(
      /For a CPU deployment: \d+ weights? could saturate x86 int8 kernels/,
    );

    await expect(page.getByTestId('eval-source-calibration')).toBeChecked();
    await page.getByTestId('evaluate-button').click();
    const result = page.getByTestId('eval-result');
    await expect(result).toBeVisible({ timeout: 90_000 });
    const cosine = (await page.getByTestId('eval-mean-cosine').textContent())!;
    expect(cosine).toMatch(/^0\.\d{6}$|^1\.000000$/);
    // Which runtime ran both models, and why there (issue 34).
    await expect(page.getByTestId('eval-ran-on')).toContainText(
      /^Evaluation \(both models\) ran on WebAssembly, \d+ threads?: quantized models run on the CPU/,
    );
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByTestId('eval-ran-on').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('eval-ran-on-1440.png') });
    // First what a user's session computes: onnxruntime-web at its default options (WASM, graph optimization 'all');
    // beside it the model's own Q/DQ arithmetic ('basic'), each labelled.
    const atDefault = (await page.getByTestId('eval-default-cosine').textContent())!;
    expect(atDefault).toMatch(/^0\.\d{6}$|^1\.000000$/);
    const headlines = await page.locator('.eval-results .facts dt').allTextContents();
    expect(headlines[0]).toBe('Mean output cosine, onnxruntime-web (WASM) default');
    expect(headlines[1]).toBe('Mean output cosine, own Q/DQ arithmetic');
    await expect(page.getByTestId('eval-judged-by')).toHaveAttribute('data-graph-optimization', 'all');
    await expect(page.getByTestId('eval-judged-by')).toHaveAttribute('data-beside', 'basic');
    await expect(page.getByTestId('eval-judged-by')).toContainText(
      "Judged first by onnxruntime-web (WASM) at its default options: onnxruntime at graph optimization 'all'",
    );
    await expect(page.getByTestId('eval-judged-by')).toContainText(
      "graph optimization 'basic': the model's own Q/DQ arithmetic",
    );
    await expect(page.getByTestId('eval-default-outputs')).toBeVisible();
    for (const c of [cosine, atDefault]) {
      expect(Number(c)).toBeGreaterThan(0.99); // UltraFace quantizes well (docs/NOTES.md: 0.9999)
      expect(Number(c)).toBeLessThan(1);
    }
    await page.getByTestId('eval-result').scrollIntoViewIfNeeded();
    await page.getByTestId('eval-judged-by').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('levels-1440.png') });
    await page.setViewportSize({ width: 900, height: 900 });
    await page.getByTestId('eval-judged-by').scrollIntoViewIfNeeded();
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.screenshot({ path: info.outputPath('levels-900.png') });
    await page.setViewportSize({ width: 1440, height: 900 });
    // Task accuracy: the face detector recognised, its boxes compared with the float model's and drawn side by side.
    const task = page.getByTestId('eval-task');
    await expect(task).toHaveAttribute('data-task', 'detect');
    await expect(task).toContainText('Agreement with the float model');
    await expect(task).toContainText(/boxes at score ≥ 0\.7: \d+ found/);
    await expect(task.locator('.task-picture').first().locator('svg image').first()).toHaveAttribute(
      'href',
      /^data:image\//,
    );
    await task.locator('.task-picture').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('task-1440.png') });
    await page.setViewportSize({ width: 900, height: 900 });
    await task.locator('.task-picture').first().scrollIntoViewIfNeeded();
    // Two frames after the resize: the pictures repainted at the new width before the screenshot.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.screenshot({ path: info.outputPath('task-900.png') });
    await page.setViewportSize({ width: 1440, height: 900 });
    const outputCosines = await page
      .locator('[data-testid="eval-outputs"] tr[data-metric="cosine"] [data-testid="metric-cosine-mean"]')
      .allTextContents();
    expect(outputCosines).toHaveLength(2); // scores and boxes
    const worst = (await page.getByTestId('eval-worst-sqnr').textContent())!;
    expect(worst).toMatch(/^-?\d+\.\d{2} dB$/);
    await expect(page.getByTestId('eval-layer-row').first()).toBeVisible();
    await expect(page.getByTestId('eval-layer-chart').locator('svg rect').first()).toBeAttached();
    const jump = (await page.getByTestId('eval-jumps').locator('li').first().textContent())!; // e.g. "BatchNormalization_1 −25.22 dB"
    const [jumpNode, jumpDrop] = [jump.split(' ')[0], jump.match(/−(\S+) dB/)![1]];
    // The per-node SQNR is laid over the graph as a heat map.
    const legend = page.getByTestId('graph-heat-legend');
    await expect(legend).toContainText('SQNR (dB)');
    await expect(legend).toContainText(/[1-9]\d* nodes with a value/);
    // Under the heat map the op-family swatches are gone (they named colours the boxes no longer wear).
    await expect(page.getByTestId('graph-families').locator('li')).toHaveText(['excluded (stays float)']);
    // A red inner layer beside a good output is said to be one tensor inside, whose error later layers absorb.
    await expect(page.getByTestId('eval-default-cosine')).toHaveClass(/eval-value--good/);
    await expect(page.getByTestId('eval-worst-sqnr-meaning')).toContainText('the layers after it absorb this error');
    // The worst layer's name (BatchNormalization_154) stays whole on its line, not broken as "BatchNormaliza|tion_154".
    const name = page.getByTestId('eval-worst-sqnr').locator('xpath=following-sibling::span[1]');
    // Lines it covers: the rows its drawn fragments stand on (an empty fragment may end the line before it).
    const lines = await name.evaluate(
      (e) => new Set([...e.getClientRects()].filter((r) => r.width > 1).map((r) => Math.round(r.y))).size,
    );
    expect(lines, `${await name.textContent()} on one line`).toBe(1);
    await page
      .getByTestId('eval-worst-sqnr')
      .locator('xpath=ancestor::dl')
      .screenshot({ path: info.outputPath('tiles.png') });
    await page.getByTestId('graph-families').scrollIntoViewIfNeeded();
    await page.screenshot({ path: info.outputPath('heat-legend.png') });

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-eval-html').click(),
    ]);
    expect(download.suggestedFilename()).toBe('ultraface-rfb-320.quant.report.html');
    const saved = info.outputPath('report.html');
    await download.saveAs(saved);
    // The task pictures' photos are embedded once each, the large ones (face.png 1.2 MB, astronaut.png 0.8 MB) as
    // JPEGs of at most 1024 px a side; the small ones as given.
    const photos = [
      ...fs
        .readFileSync(saved, 'utf8')
        .matchAll(/<image id="task-photo-\d+" href="(data:image\/[a-z]+);base64,([^"]+)"/g),
    ];
    expect(photos.length).toBeGreaterThanOrEqual(2);
    expect(photos.some(([, type]) => type === 'data:image/jpeg')).toBe(true);
    for (const [, , base64] of photos) expect(base64.length).toBeLessThan(400_000);
    const [jsonDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-eval-json').click(),
    ]);
    const json = JSON.parse(fs.readFileSync((await jsonDownload.path())!, 'utf8'));
    expect(json.schema).toBe('quant-studio/report@1');
    expect(json.graphOptimization).toBe('basic');
    expect(Number(json.fidelity.meanCosine).toFixed(6)).toBe(cosine);
    expect(json.atDefault).toMatchObject({ graphOptimization: 'all', runtime: 'onnxruntime-web (WASM)' });
    expect(Number(json.atDefault.fidelity.meanCosine).toFixed(6)).toBe(atDefault);
    expect(json.floatModel.sha256).toMatch(/^[0-9a-f]{64}$/);

    // The report opens with the network off and asks for nothing but itself.
    const context = await browser.newContext({ offline: true });
    const requests: string[] = [];
    await context.route('**/*', (route) => {
      if (route.request().url().startsWith('file:')) return route.continue();
      requests.push(route.request().url());
      return route.abort();
    });
    const offline = await context.newPage();
    const problems: string[] = [];
    offline.on('pageerror', (e) => problems.push(e.message));
    const url = pathToFileURL(saved).href;
    offline.on('request', (r) => {
      if (r.url() !== url) requests.push(r.url());
    });
    await offline.goto(url);
    await expect(offline.locator('h1')).toContainText('ultraface-rfb-320');
    const cards = offline.locator('.cards');
    await expect(cards).toContainText(cosine);
    await expect(cards).toContainText(atDefault);
    await expect(cards.locator('.card').first()).toContainText('onnxruntime-web (WASM) default');
    await expect(cards).toContainText(worst);
    const body = (await offline.locator('body').textContent())!;
    for (const c of outputCosines) expect(body).toContain(c);
    expect(body).toContain(json.floatModel.sha256);
    expect(body).toContain(
      "Judged first byonnxruntime-web (WASM) at its default options: onnxruntime at graph optimization 'all'",
    );
    expect(body).toContain("And beside it byonnxruntime at graph optimization 'basic'");
    expect(body).toContain('ultraface-rfb-320.quant.onnx');
    await expect(cards).toContainText(`${jumpDrop} dB`); // the largest error jump, as the page called it out
    await expect(cards).toContainText(jumpNode);
    await expect(offline.locator('svg.chart').first()).toBeVisible();
    expect(requests).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  test('suggest exclusions: each step measured and listed, accept adds the picks and the old quantized model is dropped', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await quantizedUltraface(page);
    await page.getByTestId('suggest-target').fill('0.999999');
    await page.getByTestId('suggest-steps').fill('2');
    // The search aims at onnxruntime-web's default options unless told otherwise, and says so.
    await expect(page.getByTestId('suggest-aim')).toHaveValue('all');
    await page.getByTestId('suggest-button').click();
    await expect(page.getByTestId('suggest-progress')).toBeVisible();
    await expect(page.getByTestId('suggest-outcome')).toBeVisible({ timeout: 120_000 });
    await expect(page.getByTestId('suggest-aimed')).toHaveAttribute('data-aim', 'all');
    await expect(page.getByTestId('suggest-aimed')).toContainText("onnxruntime-web's default (WASM, 'all')");
    const cosines = await page.getByTestId('suggest-step-cosine').allTextContents();
    expect(cosines).toHaveLength(3); // the start and two measured steps
    for (const c of cosines) expect(Number(c)).toBeGreaterThan(0.99);
    await expect(page.getByTestId('suggest-step').nth(1)).toContainText('float');
    const best = Number(await page.getByTestId('suggest-best').textContent());
    expect(best).toBe(Math.max(...cosines.map(Number))); // a step is kept only when it beats the best so far
    const accept = page.getByTestId('suggest-accept');
    if (await accept.count()) {
      await accept.click();
      await expect(accept).toBeDisabled();
      await expect(page.getByTestId('quantize-result')).toHaveCount(0); // quantized without the picks: stale, dropped
    } else {
      expect(best).toBe(Number(cosines[0])); // nothing kept: nothing to accept
    }

    // The downloaded report carries the search.
    await page.getByTestId('quantize-button').click();
    await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 60_000 });
    await page.getByTestId('evaluate-button').click();
    await expect(page.getByTestId('eval-result')).toBeVisible({ timeout: 90_000 });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('download-eval-json').click(),
    ]);
    const json = JSON.parse(fs.readFileSync((await download.path())!, 'utf8'));
    expect(json.suggest.steps).toHaveLength(3);
  });

  test('a separate evaluation set: a corrupt image is named as it is added and not taken; cancel leaves the page usable', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    await quantizedUltraface(page);

    await dropFiles(page.getByTestId('eval-drop'), [
      imageFromFixture('photos/flower.jpg'),
      CORRUPT,
      imageFromFixture('coco/000000000139.jpg'),
    ]);
    await expect(page.getByTestId('eval-source-own')).toBeChecked();
    await expect(page.getByTestId('eval-summary')).toHaveText('2 evaluation images');
    await expect(page.getByTestId('eval-rejected')).toContainText('broken.jpg');
    await expect(page.getByTestId('eval-rejected')).toContainText('not a readable image');
    await page.getByTestId('evaluate-button').click();
    await expect(page.getByTestId('eval-result')).toBeVisible({ timeout: 90_000 });
    await expect(page.getByTestId('eval-skipped-file')).toHaveCount(0);
    await expect(page.getByTestId('eval-mean-cosine')).toHaveText(/^0\.\d{6}$/);
    const first = await page.getByTestId('eval-mean-cosine').textContent();

    // Nothing readable: nothing is added, the evaluation stays on the calibration data, the result is kept.
    await page.getByTestId('eval-clear').click();
    await dropFiles(page.getByTestId('eval-drop'), [CORRUPT]);
    await expect(page.getByTestId('eval-rejected')).toContainText('broken.jpg');
    await expect(page.getByTestId('eval-summary')).toHaveText('Drop evaluation images here');
    await expect(page.getByTestId('eval-source-calibration')).toBeChecked();
    await expect(page.getByTestId('eval-mean-cosine')).toHaveText(first!);

    // Cancel a run on more images; the page stays usable and a new run completes.
    const coco = fs.readdirSync(`${import.meta.dirname}/../../shared/fixtures/images/coco`).sort();
    await dropFiles(
      page.getByTestId('eval-drop'),
      coco.map((n) => imageFromFixture(`coco/${n}`)),
    );
    await page.getByTestId('evaluate-button').click();
    await expect(page.getByTestId('eval-progress')).toBeVisible();
    await page.getByTestId('eval-progress-cancel').click();
    await expect(page.getByTestId('eval-cancelled')).toBeVisible();
    await expect(page.getByTestId('eval-progress')).toHaveCount(0);
    await page.getByTestId('eval-source-calibration').check();
    await page.getByTestId('evaluate-button').click();
    await expect(page.getByTestId('evaluate-card')).toHaveAttribute('data-eval-status', 'done', { timeout: 90_000 });
  });
});
