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
import { dropFiles, expect, imageFromFixture, openWithModel, test } from './support.ts';

type Pick = 'Shift' | 'Alt' | 'Control' | null;

const ROOT = path.resolve(import.meta.dirname, '..');

/** The golden tail and the float nodes of a quantized UltraFace, computed in Node by the core. */
function tailFloatNodes(model: string | null): { golden: string[]; float: string[]; quantizeNodes: number } {
  const args = ['--import', 'tsx', path.join(ROOT, 'e2e/builders/tailFloatNodes.ts'), ...(model ? [model] : [])];
  const out = execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop()!);
}

/** Finds a node with the search box (Enter jumps to it), then clicks its box on the canvas. */
async function clickNode(page: Page, id: string, modifier: Pick = null): Promise<void> {
  const search = page.getByTestId('graph-search');
  await search.fill(id);
  await search.press('Enter');
  await expect(page.getByTestId('node-inspector')).toHaveAttribute('data-node-id', id);
  const canvas = page.getByTestId('graph-canvas');
  await canvas.scrollIntoViewIfNeeded();
  // The jump centres the node in the canvas; wait until the view is there and at rest.
  await page.waitForFunction((node) => {
    const g = window.__qsGraph;
    const box = document.querySelector('[data-testid="graph-canvas"]')!.getBoundingClientRect();
    const at = g?.position(node);
    return !!g && !!at && g.idle() && g.isDetailed(node) && Math.abs(at.x - (box.left + box.width / 2)) < 2 && Math.abs(at.y - (box.top + box.height / 2)) < 2;
  }, id);
  const at = await page.evaluate((node) => window.__qsGraph!.position(node), id);
  if (modifier) await page.keyboard.down(modifier);
  await page.mouse.click(at!.x, at!.y);
  if (modifier) await page.keyboard.up(modifier);
}

const highlighted = (page: Page, state: 'preview' | 'excluded' | 'start' | 'end' | 'hovered') => page.evaluate((s) => window.__qsGraph!.idsWith(s).sort(), state);

test.describe('graph picking', () => {
  test('UltraFace: pick the post-processing tail on the graph, add it, quantize; exactly the golden nodes stay float', async ({ page }, info) => {
    test.setTimeout(180_000);

    await openWithModel(page, 'ultraface-rfb-320.onnx');
    await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });
    // The golden set: the nodes the export without post-processing lacks (18 of them).
    const { golden } = tailFloatNodes(null);
    expect(golden).toHaveLength(18);
    expect(await highlighted(page, 'preview')).toEqual([]);

    // Starts: one by the Start mode, one by Shift+click; the end by the End mode.
    await page.getByTestId('pick-mode-start').click();
    await clickNode(page, 'Slice_217');
    await page.getByTestId('pick-mode-inspect').click();
    await clickNode(page, 'Slice_224', 'Shift');
    await expect(page.getByTestId('pick-incomplete')).toContainText('end node');
    await page.getByTestId('pick-mode-end').click();
    await clickNode(page, 'Concat_241');

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
    await dropFiles(page.getByTestId('calibration-drop'), ['face.png', 'grace_hopper.jpg', 'astronaut.png'].map((n) => imageFromFixture(`photos/${n}`)));
    await expect(page.getByTestId('calibration-summary')).toHaveText('3 images');
    await page.getByTestId('preprocess-preset').selectOption('ultraface');
    await page.getByTestId('quant-preset').selectOption('U8S8');
    await page.getByTestId('calibrate-button').click();
    await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 90_000 });
    await page.getByTestId('quantize-button').click();
    await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 60_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
    const saved = info.outputPath('ultraface-rfb-320.quant.onnx');
    await download.saveAs(saved);

    // In Node: of the tail's op types, exactly the golden nodes stayed float (see tailFloatNodes.ts).
    const { float, quantizeNodes } = tailFloatNodes(saved);
    expect(quantizeNodes).toBeGreaterThan(0);
    expect(float).toEqual(golden);
  });

  test('picks that do not connect are explained and cannot be added; Esc clears; nodes and op types are shaded, hovered and removed', async ({ page }) => {
    await openWithModel(page, 'ultraface-rfb-320.onnx');
    await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true', { timeout: 60_000 });
    // Concat_241 (the end of the box tail) cannot reach Slice_217 (upstream of it).
    await clickNode(page, 'Concat_241', 'Shift');
    await clickNode(page, 'Slice_217', 'Alt');
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
    await clickNode(page, 'Exp_227', 'Control');
    await expect(page.getByTestId('add-nodes')).toBeEnabled();
    await page.getByTestId('add-nodes').click();
    await page.getByTestId('add-op-type-select').selectOption('Softmax');
    await page.getByTestId('add-op-type').click();
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
