/**
 * The graph pane redraws what the viewport shows, judged on its pixels (a screenshot of the pane, not the DOM): zoom
 * changes the picture, and after zoom, pan, a search jump or the Fit/100 % controls, what is on screen is the picture
 * a fresh draw of the same viewport gives (the pane resized by one pixel and back: a full redraw at the same zoom and
 * pan). A stale overview (the old picture left, or a ghost of the whole graph over the nodes) fails both.
 * On MNIST, YOLOX-nano and a synthetic 5,000-node exporter-like graph (bench/syntheticGraph.ts).
 */
import type { Page } from '@playwright/test';
import { PNG } from 'pngjs';
import { nextPaint, openGraph, paintedAtRest, syntheticGraphFile } from './graphPage.ts';
import { expect, fileFromFixture, test } from './support.ts';

/**
 * Share of the picture that differs between two PNG screenshots of the same size, compared in blocks of 4 × 4
 * pixels (mean colour, any channel off by more than 16): a box, an edge or a ghost of the graph counts, the
 * anti-aliasing of a label cytoscape drew from a cache at another zoom does not.
 */
function changedShare(a: Buffer, b: Buffer): number {
  const pa = PNG.sync.read(a),
    pb = PNG.sync.read(b);
  expect([pb.width, pb.height]).toEqual([pa.width, pa.height]);
  const B = 4;
  const bw = Math.floor(pa.width / B),
    bh = Math.floor(pa.height / B);
  let changed = 0;
  for (let by = 0; by < bh; by++) {
    for (let bx = 0; bx < bw; bx++) {
      const sum = [0, 0, 0];
      for (let y = by * B; y < by * B + B; y++) {
        for (let x = bx * B; x < bx * B + B; x++) {
          const i = (y * pa.width + x) * 4;
          for (let c = 0; c < 3; c++) sum[c] += pa.data[i + c] - pb.data[i + c];
        }
      }
      if (sum.some((d) => Math.abs(d) / (B * B) > 16)) changed++;
    }
  }
  return changed / (bw * bh);
}

/**
 * Share of the pixels of `a` that have no match in `b` within one pixel (any channel off by more than 40 from each of
 * the 3 × 3 neighbours): what a stale or ghost picture leaves, while a redraw half a pixel off (cytoscape rounds a
 * fractional pan differently before and after a resize) matches.
 */
function unmatchedShare(a: Buffer, b: Buffer): number {
  const pa = PNG.sync.read(a),
    pb = PNG.sync.read(b);
  expect([pb.width, pb.height]).toEqual([pa.width, pa.height]);
  const { width, height } = pa;
  let unmatched = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      let matched = false;
      for (let dy = -1; dy <= 1 && !matched; dy++) {
        for (let dx = -1; dx <= 1 && !matched; dx++) {
          const xx = x + dx,
            yy = y + dy;
          if (xx < 0 || yy < 0 || xx >= width || yy >= height) continue;
          const j = (yy * width + xx) * 4;
          matched =
            Math.abs(pa.data[i] - pb.data[j]) <= 40 &&
            Math.abs(pa.data[i + 1] - pb.data[j + 1]) <= 40 &&
            Math.abs(pa.data[i + 2] - pb.data[j + 2]) <= 40;
        }
      }
      if (!matched) unmatched++;
    }
  }
  return unmatched / (width * height);
}

/** The graph pane's pixels once the view is at rest, its last frame painted, and two screenshots in a row agree. */
async function paneAtRest(page: Page): Promise<Buffer> {
  const pane = page.getByTestId('graph-canvas');
  await paintedAtRest(page);
  let last = await pane.screenshot();
  for (let i = 0; i < 20; i++) {
    await paintedAtRest(page);
    const now = await pane.screenshot();
    if (changedShare(last, now) === 0) return now;
    last = now;
  }
  return last;
}

/** The pane as a fresh draw of the current viewport shows it: the pane made a pixel taller and back (a resize redraws everything). */
async function freshPane(page: Page): Promise<Buffer> {
  const resize = (grow: number) =>
    page.getByTestId('graph-canvas').evaluate((el: HTMLElement, by) => {
      el.style.height = by ? `${el.getBoundingClientRect().height + by}px` : '';
    }, grow);
  await resize(1);
  await nextPaint(page); // the resize observed (the renderer is busy from here)
  await paintedAtRest(page);
  await resize(0);
  await nextPaint(page);
  return paneAtRest(page);
}

/** What is on screen now matches a fresh draw of the same viewport. */
async function expectCurrent(page: Page, what: string): Promise<Buffer> {
  const shown = await paneAtRest(page);
  const fresh = await freshPane(page);
  const share = Math.max(unmatchedShare(shown, fresh), unmatchedShare(fresh, shown));
  expect(share, `${what}: the pane differs from a fresh draw of the same view`).toBeLessThan(0.001);
  return shown;
}

async function clickTimes(page: Page, label: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++) await page.getByRole('button', { name: label, exact: true }).click();
}

/** Zoom in and out with the buttons, pan with the mouse, jump with the search: each picture new, each current. */
async function exercise(page: Page, search: string): Promise<void> {
  const first = await paneAtRest(page); // no fresh draw here: a resize would hide a stale first picture

  await clickTimes(page, 'Zoom in', 6);
  const zoomedIn = await expectCurrent(page, 'after six "Zoom in" clicks');
  // (On a 5,000-node graph opened at "fit", six clicks still leave a thin line: a small share of the pane.)
  expect(changedShare(first, zoomedIn), 'six "Zoom in" clicks changed the picture').toBeGreaterThan(0.002);

  await clickTimes(page, 'Zoom out', 3);
  const zoomedOut = await expectCurrent(page, 'after three "Zoom out" clicks');
  expect(changedShare(zoomedIn, zoomedOut), 'three "Zoom out" clicks changed the picture').toBeGreaterThan(0.002);

  const pane = page.getByTestId('graph-canvas');
  const box = (await pane.boundingBox())!;
  // From the pane's left margin (a drag that starts on a box does not pan in cytoscape).
  await page.mouse.move(box.x + 12, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + 132, box.y + box.height / 2 - 160, { steps: 8 });
  await page.mouse.up();
  const panned = await expectCurrent(page, 'after a drag');
  expect(changedShare(zoomedOut, panned), 'a drag moved the picture').toBeGreaterThan(0.002);

  await page.locator('body').press('/');
  await page.getByTestId('graph-search').fill(search);
  await page.getByTestId('graph-search').press('Enter');
  await page.getByTestId('graph-search').blur();
  await expectCurrent(page, `after a search jump to "${search}"`);

  await page.getByTestId('graph-fit').click();
  const fitted = await expectCurrent(page, 'after Fit');
  expect(changedShare(panned, fitted), 'Fit changed the picture').toBeGreaterThan(0.002);
}

test.describe('the graph redraws on every zoom, pan, search jump and resize', () => {
  test('YOLOX-nano: six "Zoom in" clicks change the picture, and it is current', async ({ page }) => {
    test.setTimeout(120_000);
    await openGraph(page, fileFromFixture('yolox-nano.onnx'));
    const first = await paneAtRest(page);
    await clickTimes(page, 'Zoom in', 6);
    const zoomed = await paneAtRest(page);
    expect(changedShare(first, zoomed), 'six "Zoom in" clicks changed the picture').toBeGreaterThan(0.02);
    await expectCurrent(page, 'after six "Zoom in" clicks');
  });

  test('YOLOX-nano: after a "/" search jump the pane shows the view jumped to, no ghost of the earlier picture', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    await openGraph(page, fileFromFixture('yolox-nano.onnx'));
    await page.locator('body').press('/');
    await page.getByTestId('graph-search').fill('Concat_397');
    await page.getByTestId('graph-search').press('Enter');
    await expect(page.getByTestId('node-inspector')).toHaveAttribute('data-node-id', 'Concat_397');
    await expectCurrent(page, 'after the jump');
  });

  test('YOLOX-nano: zoom, pan, jump, fit', async ({ page }) => {
    test.setTimeout(180_000);
    await openGraph(page, fileFromFixture('yolox-nano.onnx'));
    await exercise(page, 'Concat_397');
  });

  test('MNIST', async ({ page }) => {
    test.setTimeout(120_000);
    await openGraph(page, fileFromFixture('mnist.onnx'));
    await exercise(page, 'Plus214');
  });

  test('a synthetic 5,000-node graph', async ({ page }, info) => {
    test.setTimeout(240_000);
    await openGraph(page, syntheticGraphFile(info.outputPath('synthetic-5000.onnx'), 5000));
    await exercise(page, '/model.3/cv1/conv/Conv');
  });
});
