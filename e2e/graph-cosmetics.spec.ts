/**
 * The graph step's small things, in a real Chromium at 1440 × 900 and 900 px wide: the graph does not move as picks
 * come and go (the pick toolbar keeps its height), the search's results drop over the graph and not over the picking
 * tools, the op-type list starts on a placeholder (not on "Add", which reads as a verb), edge shape labels never
 * overlap, and a node's op type and id in the inspector break at separators, never mid-word ("DequantizeLin/ear").
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { openGraph } from './graphPage.ts';
import { clickGraphNode, expect, fileFromFixture, test } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const WIDTHS = [1440, 900];

/** The graph pane's top edge in the document (not the viewport: the page may scroll). */
const paneTop = (page: Page) =>
  page.getByTestId('graph-canvas').evaluate((el) => el.getBoundingClientRect().top + window.scrollY);

const overlap = (
  a: { x1: number; y1: number; x2: number; y2: number },
  b: { x1: number; y1: number; x2: number; y2: number },
) => a.x1 < b.x2 - 0.5 && a.x2 > b.x1 + 0.5 && a.y1 < b.y2 - 0.5 && a.y2 > b.y1 + 0.5;

for (const width of WIDTHS) {
  test.describe(`graph cosmetics at ${width} px`, () => {
    test('picks, errors and added entries do not move the graph; one op-type list on the page, on a placeholder; the search results do not cover the picking tools', async ({
      page,
    }) => {
      test.setTimeout(120_000);
      await openGraph(page, fileFromFixture('ultraface-rfb-320.onnx'), width);
      const top = await paneTop(page);

      // One control adds an op type (the "Keep in float" card's; the pick toolbar repeated it), on a placeholder.
      const select = page.getByTestId('add-optype-select');
      await expect(page.locator('select:has(option:text-is("Choose an op type…"))')).toHaveCount(1);
      await expect(page.getByRole('button', { name: 'Exclude op type' })).toHaveCount(1);
      // Nodes: the toolbar's button takes the picks, the card's the ids typed in; the names say which.
      await expect(page.getByTestId('add-nodes')).toHaveText('Exclude picked nodes');
      await expect(page.getByRole('button', { name: 'Exclude nodes', exact: true })).toHaveCount(1);
      await expect(select.locator('option:checked')).toHaveText('Choose an op type…');
      await expect(page.getByTestId('add-optype-button')).toBeDisabled();

      await clickGraphNode(page, 'Slice_217', 'Shift');
      await expect(page.getByTestId('pick-incomplete')).toBeVisible();
      expect(await paneTop(page), 'a start picked').toBeCloseTo(top, 0);
      await clickGraphNode(page, 'Concat_241', 'Alt');
      await expect(page.getByTestId('pick-preview')).toBeVisible();
      expect(await paneTop(page), 'a subgraph previewed').toBeCloseTo(top, 0);
      const tail = await page.evaluate(() => window.__qsGraph!.idsWith('preview'));
      for (const id of tail.filter((t) => t !== 'Slice_217' && t !== 'Concat_241').slice(0, 6))
        await clickGraphNode(page, id, 'Control');
      await expect(page.locator('.pick-chip')).toHaveCount(8);
      expect(await paneTop(page), 'eight picks').toBeCloseTo(top, 0);
      await page.getByTestId('add-subgraph').click();
      await expect(page.getByTestId('pick-added')).toBeVisible();
      expect(await paneTop(page), 'an entry added').toBeCloseTo(top, 0);
      await clickGraphNode(page, 'Concat_241', 'Shift');
      await clickGraphNode(page, 'Slice_217', 'Alt');
      await expect(page.getByTestId('pick-error')).toContainText('cannot be reached');
      expect(await paneTop(page), 'picks that select nothing').toBeCloseTo(top, 0);

      await select.selectOption('Softmax');
      await expect(page.getByTestId('add-optype-button')).toBeEnabled();

      // The search's results list: over the graph, not over the picking tools.
      await page.getByTestId('graph-search').fill('Conv');
      const results = page.getByTestId('graph-search-results');
      await expect(results).toBeVisible();
      const list = (await results.boundingBox({ timeout: 5_000 }))!;
      const tools = (await page.getByTestId('pick-toolbar').boundingBox())!;
      const covers =
        list.x < tools.x + tools.width &&
        list.x + list.width > tools.x &&
        list.y < tools.y + tools.height &&
        list.y + list.height > tools.y;
      expect(covers, 'the results list covers the pick toolbar').toBe(false);
    });

    test('YOLOX-nano: edge shape labels never overlap, where its input fans out and where its head converges', async ({
      page,
    }) => {
      await openGraph(page, fileFromFixture('yolox-nano.onnx'), width);
      for (const at of ['Slice_4', 'Concat_40', 'Concat_397', 'Concat_422']) {
        await page.getByTestId('graph-search').fill(at);
        await page.getByTestId('graph-search').press('Enter');
        await page.waitForFunction(() => window.__qsGraph?.idle() === true);
        await expect.poll(() => page.evaluate(() => window.__qsGraph!.edgeLabelBoxes().length)).toBeGreaterThan(4);
        const labels = await page.evaluate(() => window.__qsGraph!.edgeLabelBoxes());
        for (let i = 0; i < labels.length; i++) {
          for (let j = i + 1; j < labels.length; j++)
            expect(
              overlap(labels[i], labels[j]),
              `near ${at}: "${labels[i].text}" and "${labels[j].text}" overlap`,
            ).toBe(false);
        }
      }
    });

    test('a quantized YOLOX-nano: the inspector shows "DequantizeLinear" and the node id whole, each on one line', async ({
      page,
    }, info) => {
      test.setTimeout(120_000);
      const file = info.outputPath('yolox-u8s8.onnx');
      execFileSync(
        process.execPath,
        ['--import', 'tsx', path.join(ROOT, 'e2e/builders/quantizedModel.ts'), 'yolox-nano.onnx', file],
        { cwd: ROOT },
      );
      await openGraph(
        page,
        { name: 'yolox-u8s8.onnx', mimeType: 'application/octet-stream', buffer: fs.readFileSync(file) },
        width,
      );
      await page.getByLabel('Q/DQ as nodes').check();
      await page.getByTestId('graph-search').fill('DequantizeLinear');
      await page.getByTestId('graph-search').press('Enter');
      const inspector = page.getByTestId('node-inspector');
      const op = inspector.locator('.inspector__op');
      await expect(op).toHaveText('DequantizeLinear');
      const id = inspector.getByTestId('inspector-id');
      for (const [what, part] of [
        ['op type', op],
        ['id', id],
      ] as const) {
        const { height, line } = await part.evaluate((el) => {
          const style = getComputedStyle(el);
          return {
            height: el.getBoundingClientRect().height,
            line: parseFloat(style.lineHeight) || 1.3 * parseFloat(style.fontSize),
          };
        });
        expect(height, `the ${what} (${await part.textContent()}) wraps`).toBeLessThan(1.6 * line + 4);
      }
      await inspector.screenshot({ path: info.outputPath(`inspector-${width}.png`) });
    });
  });
}
