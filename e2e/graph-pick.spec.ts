/**
 * Picking an exclusion on the graph, in a real Chromium: UltraFace (every node unnamed, so the picks
 * are the stable ids) drawn, the post-processing tail's starts and end found with the search and
 * clicked on the canvas (through cytoscape's own click handling), the resolved subgraph highlighted
 * before it is added, then calibrate, quantize, download; in Node, the downloaded model keeps exactly
 * the golden tail in float. Also: picks that resolve to nothing are explained, not added.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { calibrateAndQuantize, clickGraphNode, expect, imageFromFixture, openWithModel, test } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** The golden tail and the float nodes of a quantized UltraFace, computed in Node by the core. */
function tailFloatNodes(model: string | null): { golden: string[]; float: string[]; quantizeNodes: number } {
  const args = ['--import', 'tsx', path.join(ROOT, 'e2e/builders/tailFloatNodes.ts'), ...(model ? [model] : [])];
  const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!);
}

const highlighted = (page: Page, state: 'preview' | 'excluded' | 'start' | 'end' | 'hovered') =>
  page.evaluate((s) => window.__qsGraph!.idsWith(s).sort(), state);

test.describe('graph picking', () => {
  test('UltraFace: pick the post-processing tail on the graph, add it, quantize; exactly the golden nodes stay float', async ({
    page,
  }, info) => {
    test.setTimeout(180_000);

    await openWithModel(page, 'ultraface-rfb-320.onnx');
    await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });
    // The golden set: the nodes the export without post-processing lacks (18 of them).
    const { golden } = tailFloatNodes(null);
    expect(golden).toHaveLength(18);
    expect(await highlighted(page, 'preview')).toEqual([]);

    // Starts: one by the Start mode, one by Shift+click; the end by the End mode.
    await page.getByTestId('pick-mode-start').click();
    await clickGraphNode(page, 'Slice_217');
    await expect.poll(() => highlighted(page, 'start')).toEqual(['Slice_217']);
    await page.getByTestId('pick-mode-inspect').click();
    await clickGraphNode(page, 'Slice_224', 'Shift');
    await expect.poll(() => highlighted(page, 'start')).toEqual(['Slice_217', 'Slice_224']);
    await expect(page.getByTestId('pick-incomplete')).toContainText('end node');
    await page.getByTestId('pick-mode-end').click();
    await clickGraphNode(page, 'Concat_241');
    await expect.poll(() => highlighted(page, 'end')).toEqual(['Concat_241']);

    const preview = page.getByTestId('pick-preview');
    await expect(preview).toHaveAttribute('data-count', '18');
    expect(await highlighted(page, 'preview')).toEqual(golden);
    expect(await highlighted(page, 'start')).toEqual(['Slice_217', 'Slice_224']);
    expect(await highlighted(page, 'end')).toEqual(['Concat_241']);

    await page.getByTestId('exclusion-name').fill('post-processing tail');
    await page.getByTestId('add-subgraph').click();
    await expect(page.getByTestId('pick-added')).toContainText('post-processing tail');
    await expect(page.getByTestId('pick-preview')).toHaveCount(0);
    await expect.poll(() => highlighted(page, 'excluded')).toEqual(golden);

    // Calibrate on a few photos with UltraFace's preprocessing, quantize, download.
    await calibrateAndQuantize(
      page,
      ['face.png', 'grace_hopper.jpg', 'astronaut.png'].map((n) => imageFromFixture(`photos/${n}`)),
      'ultraface',
      'U8S8',
    );
    // The float nodes' reasons name the exclusion as the user named it.
    await expect(page.getByTestId('report-float-nodes').locator('summary')).toContainText(
      'excluded: “post-processing tail” (subgraph',
    );
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
    const saved = info.outputPath('ultraface-rfb-320.quant.onnx');
    await download.saveAs(saved);

    // In Node: of the tail's op types, exactly the golden nodes stayed float (see tailFloatNodes.ts).
    const { float, quantizeNodes } = tailFloatNodes(saved);
    expect(quantizeNodes).toBeGreaterThan(0);
    expect(float).toEqual(golden);
  });

  test('a click lands on the box under it after the canvas moved on the page with no scroll or resize', async ({
    page,
  }) => {
    // cytoscape keeps the canvas's place on the page until a scroll, resize or transition event; the golden test's
    // Shift+click on Slice_224 once picked nothing under load: the canvas had been scrolled in the frame of the click,
    // its scroll event not yet out, so cytoscape placed the click where the canvas was before. Here the canvas moves
    // with no such event at all (a block grows above it, scroll anchoring off), the same stale place, deterministically.
    await openWithModel(page, 'ultraface-rfb-320.onnx');
    await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });
    await clickGraphNode(page, 'Slice_217', 'Shift');
    await expect.poll(() => highlighted(page, 'start')).toEqual(['Slice_217']);
    // Every event of that click is out (two frames), and cytoscape has measured the canvas's place (a move over it).
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    const before = (await page.evaluate(() => window.__qsGraph!.position('Slice_217')))!;
    await page.mouse.move(before.x + 4, before.y + 4);
    await page.evaluate(() => {
      document.documentElement.style.overflowAnchor = 'none';
      const block = document.createElement('div');
      block.style.height = '120px';
      document.querySelector('.graph-workspace')!.prepend(block);
    });
    const after = (await page.evaluate(() => window.__qsGraph!.position('Slice_217')))!;
    expect(after.y - before.y).toBeCloseTo(120, 0);
    await page.keyboard.down('Alt');
    await page.mouse.click(after.x, after.y);
    await page.keyboard.up('Alt');
    await expect.poll(() => highlighted(page, 'end')).toEqual(['Slice_217']);
  });

  test('picks that do not connect are explained and cannot be added; Esc clears; nodes and op types are shaded, hovered and removed', async ({
    page,
  }) => {
    await openWithModel(page, 'ultraface-rfb-320.onnx');
    await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });
    // The pick mode is a radio group: arrow keys move along the modes, and only the chosen one is in the Tab order.
    await page.getByTestId('pick-mode-inspect').focus();
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('pick-mode-start')).toHaveAttribute('aria-checked', 'true');
    await expect(page.getByTestId('pick-mode-start')).toBeFocused();
    await expect(page.getByTestId('pick-mode-start')).toHaveAttribute('tabindex', '0');
    await expect(page.getByTestId('pick-mode-inspect')).toHaveAttribute('tabindex', '-1');
    await page.keyboard.press('ArrowLeft');
    await expect(page.getByTestId('pick-mode-inspect')).toHaveAttribute('aria-checked', 'true');
    // Concat_241 (the end of the box tail) cannot reach Slice_217 (upstream of it).
    // Each pick is seen in the chips before the next, and a click the canvas did not register is made again: once in
    // CI, at load 10, the first click picked nothing (probably landing while the canvas still resized for the inspector).
    for (const [id, modifier, chip] of [
      ['Concat_241', 'Shift', '.pick-chip--start'],
      ['Slice_217', 'Alt', '.pick-chip--end'],
    ] as const) {
      await expect(async () => {
        if ((await page.locator(chip).count()) === 0) await clickGraphNode(page, id, modifier);
        await expect(page.locator(chip)).toHaveText(new RegExp(id), { timeout: 3_000 });
      }).toPass({ timeout: 30_000 });
    }
    const error = page.getByTestId('pick-error');
    await expect(error).toHaveAttribute('data-error-name', 'ExclusionError');
    await expect(error).toContainText('cannot be reached');
    await expect(page.getByTestId('add-subgraph')).toBeDisabled();
    await page.locator('body').press('Escape');
    await expect(page.getByTestId('pick-list')).toHaveCount(0);
    await page.locator('body').press('/');
    await expect(page.getByTestId('graph-search')).toBeFocused();
    await expect(error).toHaveCount(0);
    expect(await highlighted(page, 'excluded')).toEqual([]);

    // Single nodes (Ctrl+click picks one whatever the mode) and an op type: shaded once added.
    await clickGraphNode(page, 'Exp_227', 'Control');
    await expect(page.getByTestId('add-nodes')).toBeEnabled();
    await page.getByTestId('add-nodes').click();
    await page.getByTestId('add-optype-select').selectOption('Softmax');
    await page.getByTestId('add-optype-button').click();
    await expect.poll(() => highlighted(page, 'excluded')).toEqual(['Exp_227', 'Softmax_216']);

    // Hovering an entry of the list highlights its nodes; removing it takes its shading away.
    const entries = page.getByTestId('exclusion-entry');
    await expect(entries).toHaveCount(2);
    await entries.filter({ hasText: 'Softmax' }).hover();
    await expect.poll(() => highlighted(page, 'hovered')).toEqual(['Softmax_216']);
    await entries.filter({ hasText: 'Softmax' }).getByTestId('exclusion-remove').click();
    await expect.poll(() => highlighted(page, 'excluded')).toEqual(['Exp_227']);
  });
});
