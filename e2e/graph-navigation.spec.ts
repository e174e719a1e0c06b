/**
 * The graph opens readable and is usable from the keyboard, in a real Chromium: YOLOX-nano and a synthetic
 * 5,000-node graph open at 100 % with their inputs at the top (as Netron opens them), not as a one-pixel line; Fit
 * shows the whole graph and three "Zoom in" clicks from there reach readable labels again; "100 %" and the keys
 * 0, +, − do what they say; the canvas takes the focus with Tab (a visible ring), the arrow keys move the
 * selection along the edges, Enter and Space pick the selected node as a click would.
 */
import type { Page } from '@playwright/test';
import { PNG } from 'pngjs';
import { openGraph, paintedAtRest, syntheticGraphFile } from './graphPage.ts';
import { expect, fileFromFixture, test } from './support.ts';

const zoom = (page: Page) => page.evaluate(() => window.__qsGraph!.zoom());
const atRest = (page: Page) => page.waitForFunction(() => window.__qsGraph?.idle() === true);

/** Share of the pane's pixels that are not its background colour (the most common one): how much graph is drawn. */
async function drawnShare(page: Page): Promise<number> {
  await paintedAtRest(page);
  const png = PNG.sync.read(await page.getByTestId('graph-canvas').screenshot());
  const counts = new Map<number, number>();
  for (let i = 0; i < png.data.length; i += 4) {
    const key = (png.data[i] << 16) | (png.data[i + 1] << 8) | png.data[i + 2];
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const background = Math.max(...counts.values());
  return 1 - background / (png.width * png.height);
}

/** Whether a box's centre is inside the pane, and where (0…1 of its height). */
async function placeInPane(page: Page, id: string): Promise<{ inside: boolean; y: number }> {
  return page.evaluate((node) => {
    const at = window.__qsGraph!.position(node)!;
    const r = document.querySelector('[data-testid="graph-canvas"]')!.getBoundingClientRect();
    return {
      inside: at.x >= r.left && at.x <= r.right && at.y >= r.top && at.y <= r.bottom,
      y: (at.y - r.top) / r.height,
    };
  }, id);
}

test.describe('the graph opens readable, zooms in few steps and is used from the keyboard', () => {
  test('YOLOX-nano opens at 100 % with its input at the top, labels drawn', async ({ page }) => {
    await openGraph(page, fileFromFixture('yolox-nano.onnx'));
    expect(await zoom(page)).toBeCloseTo(1, 3);
    const input = await placeInPane(page, 'input:images');
    expect(input.inside).toBe(true);
    expect(input.y).toBeLessThan(0.2);
    await expect.poll(() => page.evaluate(() => window.__qsGraph!.isDetailed('input:images'))).toBe(true);
    // Boxes fill the pane (at "fit" YOLOX-nano was a line covering about 2 % of it).
    expect(await drawnShare(page)).toBeGreaterThan(0.08);
  });

  test('a 5,000-node graph: opens readable; Fit shows it whole; three "Zoom in" clicks reach 100 %; the 100 % button and keys', async ({
    page,
  }, info) => {
    test.setTimeout(180_000);
    await openGraph(page, syntheticGraphFile(info.outputPath('synthetic-5000.onnx'), 5000));
    expect(await zoom(page)).toBeCloseTo(1, 3);
    expect((await placeInPane(page, 'input:images')).y).toBeLessThan(0.2);
    expect(await drawnShare(page)).toBeGreaterThan(0.08);

    await page.getByTestId('graph-fit').click();
    await atRest(page);
    const fit = await zoom(page);
    expect(fit).toBeLessThan(0.05);
    const outputs = await page.evaluate(() => window.__qsGraph!.idsWith('selected').length); // nothing selected yet
    expect(outputs).toBe(0);
    expect((await placeInPane(page, 'input:images')).inside).toBe(true);

    for (let i = 0; i < 3; i++) await page.getByRole('button', { name: 'Zoom in', exact: true }).click();
    await atRest(page);
    expect(await zoom(page)).toBeCloseTo(1, 3);
    await expect.poll(() => page.evaluate(() => window.__qsGraph!.detailedBoxes())).toBeGreaterThan(0);

    await page.getByRole('button', { name: 'Zoom out', exact: true }).click();
    await atRest(page);
    expect(await zoom(page)).toBeLessThan(0.2);
    await page.getByTestId('graph-actual-size').click();
    await atRest(page);
    expect(await zoom(page)).toBeCloseTo(1, 3);
    await page.locator('body').press('f');
    await atRest(page);
    expect(await zoom(page)).toBeCloseTo(fit, 6);
    await page.locator('body').press('0');
    await atRest(page);
    expect(await zoom(page)).toBeCloseTo(1, 3);
    await page.locator('body').press('-');
    await atRest(page);
    expect(await zoom(page)).toBeLessThan(0.2);
    await page.locator('body').press('+');
    await atRest(page);
    expect(await zoom(page)).toBeCloseTo(1, 3);
  });

  test('MNIST: Tab focuses the canvas with a visible ring; arrows walk the edges; Enter and Space pick', async ({
    page,
  }) => {
    await openGraph(page, fileFromFixture('mnist.onnx'));
    const canvas = page.getByTestId('graph-canvas');
    const inspected = page.getByTestId('node-inspector');
    /** The box drawn selected now (input and output boxes included, which the inspector shows without an id). */
    const selectedBox = () => page.evaluate(() => window.__qsGraph!.idsWith('selected')[0] ?? null);
    const expectSelected = (id: string) => expect.poll(selectedBox).toBe(id);

    // Tab from the zoom controls, as a keyboard user gets there (past the toolbar's other controls).
    await page.getByTestId('graph-actual-size').focus();
    for (let i = 0; i < 12 && !(await canvas.evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press('Tab');
    await expect(canvas).toBeFocused();
    const ring = await canvas.evaluate((el) => getComputedStyle(el));
    expect(ring.outlineStyle).toBe('solid');
    expect(parseFloat(ring.outlineWidth)).toBeGreaterThanOrEqual(2);

    // Nothing selected: an arrow selects the box nearest the centre of the view.
    await page.keyboard.press('ArrowDown');
    await expect.poll(selectedBox).not.toBeNull();
    await expect(inspected).toHaveClass(/^inspector$/);

    // From the first convolution: up to the input, down along the chain.
    await page.getByTestId('graph-search').fill('Convolution28');
    await page.getByTestId('graph-search').press('Enter');
    await expectSelected('Convolution28');
    await canvas.focus();
    await page.keyboard.press('ArrowUp');
    await expectSelected('input:Input3');
    await page.keyboard.press('ArrowUp');
    await expectSelected('input:Input3'); // nothing above the input
    await page.keyboard.press('ArrowDown');
    await expectSelected('Convolution28');
    await page.keyboard.press('ArrowDown');
    await expectSelected('Plus30');

    // The MatMul reads two reshapes: up to one, right or left to its sibling.
    await page.getByTestId('graph-search').fill('Times212');
    await page.getByTestId('graph-search').press('Enter');
    await expectSelected('Times212');
    await canvas.focus();
    await page.keyboard.press('ArrowUp');
    const first = await selectedBox();
    expect(first).toMatch(/^Times212_reshape[01]$/);
    await page.keyboard.press(first === 'Times212_reshape0' ? 'ArrowLeft' : 'ArrowRight');
    await expectSelected(first === 'Times212_reshape0' ? 'Times212_reshape1' : 'Times212_reshape0');
    // The view follows the selection: the selected box stays in the pane.
    const selected = (await selectedBox())!;
    await atRest(page);
    expect((await placeInPane(page, selected)).inside).toBe(true);

    // Enter picks as a click would in the current mode; Space too; Shift+Enter picks a start whatever the mode.
    await page.getByTestId('pick-mode-end').click();
    await canvas.focus();
    await page.keyboard.press('ArrowDown');
    await expectSelected('Times212');
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('pick-list')).toContainText('Times212');
    await page.keyboard.press('ArrowUp');
    const start = (await selectedBox())!;
    await page.keyboard.press('Shift+Enter');
    await expect(page.locator('.pick-chip--start')).toHaveText(new RegExp(start));
    await expect(page.getByTestId('pick-preview')).toHaveAttribute('data-count', '2');
    await page.keyboard.press('Space'); // in End mode: the same node becomes an end too
    await expect(page.locator('.pick-chip--end')).toHaveCount(2);
  });
});
