/**
 * The graph view opens subgraphs as Netron does: an If's inspector offers its then and else branches, a Loop's its
 * body; "Open" draws that subgraph with the same boxes (its nodes, a nested If that opens in turn), the path back sits
 * above the canvas, and "Main graph" returns. Tensors a body reads from an enclosing scope are drawn as its inputs
 * ("outer scope"), weights of an enclosing scope stay weights. On the control-flow model the tests build in code;
 * screenshots at 1440 and 900 px wide.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { openGraph, paintedAtRest } from './graphPage.ts';
import { expect, test } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

function controlFlowFile(file: string) {
  execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'e2e/builders/controlFlowModel.ts'), file], {
    cwd: ROOT,
  });
  return { name: path.basename(file), mimeType: 'application/octet-stream', buffer: fs.readFileSync(file) };
}

/** Selects a node by clicking its box. */
async function select(page: Page, id: string): Promise<void> {
  await page.getByTestId('graph-workspace').evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await page.waitForFunction(() => window.__qsGraph?.idle() === true);
  await expect.poll(() => page.evaluate((n) => window.__qsGraph!.position(n) !== null, id)).toBe(true);
  // Opening or leaving a subgraph changes what sits above the canvas (the canvas moves some 180 px at 900 px wide):
  // read the box's place only once the canvas has kept its place on the page for two painted frames.
  await page.waitForFunction(
    () =>
      new Promise<boolean>((done) => {
        const top = () => document.querySelector('[data-testid=graph-canvas]')!.getBoundingClientRect().top;
        const first = top();
        requestAnimationFrame(() => requestAnimationFrame(() => done(top() === first)));
      }),
  );
  const at = await page.evaluate((n) => window.__qsGraph!.position(n)!, id);
  await page.mouse.click(at.x, at.y);
  await expect(page.getByTestId('node-inspector')).toHaveAttribute('data-node-id', id);
}

const drawn = async (page: Page) => {
  await expect(page.getByTestId('graph-workspace')).toHaveAttribute('data-graph-drawn', 'true');
  await page.waitForFunction(() => window.__qsGraph?.idle() === true);
};

for (const width of [1440, 900]) {
  test(`If and Loop bodies open from the inspector, nested If too, and the path leads back (${width} px)`, async ({
    page,
  }, info) => {
    await openGraph(page, controlFlowFile(info.outputPath('control-flow.onnx')), width);
    expect(await page.evaluate(() => window.__qsGraph!.position('if') !== null)).toBe(true);
    await select(page, 'if');
    await expect(page.getByTestId('open-subgraph-then_branch')).toBeVisible();
    await expect(page.getByTestId('open-subgraph-else_branch')).toBeVisible();
    await page.getByTestId('open-subgraph-then_branch').click();
    await drawn(page);
    await expect(page.getByTestId('graph-scope')).toHaveAttribute('data-depth', '1');
    await expect(page.getByTestId('graph-scope')).toContainText('if · then_branch');
    // The branch's own nodes are drawn; the main graph's are not.
    expect(await page.evaluate(() => window.__qsGraph!.position('then_gemm') !== null)).toBe(true);
    expect(await page.evaluate(() => window.__qsGraph!.position('gemm'))).toBeNull();
    // The main-graph tensor the branch reads (h, the main Gemm's output) is drawn as the branch's input, said to come
    // from the outer scope; the main-graph weights it reads (wt, bt) stay weights, with no box.
    expect(await page.evaluate(() => window.__qsGraph!.position('input:h') !== null)).toBe(true);
    expect(await page.evaluate(() => window.__qsGraph!.position('input:wt'))).toBeNull();
    await select(page, 'input:h');
    await expect(page.getByTestId('node-inspector')).toContainText('outer scope');
    await select(page, 'then_gemm');
    await expect(page.getByTestId('pick-toolbar')).toHaveCount(0);
    await page.getByTestId('graph-workspace').evaluate((e) => e.scrollIntoView({ block: 'start' }));
    await paintedAtRest(page);
    await page.screenshot({ path: info.outputPath(`then-branch-${width}.png`) });
    // The nested If opens in turn.
    await select(page, 'inner_if');
    await page.getByTestId('open-subgraph-then_branch').click();
    await drawn(page);
    await expect(page.getByTestId('graph-scope')).toHaveAttribute('data-depth', '2');
    expect(await page.evaluate(() => window.__qsGraph!.position('inner_matmul') !== null)).toBe(true);
    // Two scopes up the nested branch reads t1, computed in the enclosing then branch: an input here too.
    expect(await page.evaluate(() => window.__qsGraph!.position('input:t1') !== null)).toBe(true);
    await paintedAtRest(page);
    await page.screenshot({ path: info.outputPath(`nested-then-${width}.png`) });
    // Back to the main graph, then into the Loop's body.
    await page.getByTestId('graph-scope-main').click();
    await drawn(page);
    await expect(page.getByTestId('graph-scope')).toHaveCount(0);
    expect(await page.evaluate(() => window.__qsGraph!.position('gemm') !== null)).toBe(true);
    await select(page, 'loop');
    await page.getByTestId('open-subgraph-body').click();
    await drawn(page);
    for (const id of ['body_matmul', 'body_add', 'body_tanh'])
      expect(await page.evaluate((n) => window.__qsGraph!.position(n) !== null, id), id).toBe(true);
    await select(page, 'body_matmul');
    await paintedAtRest(page);
    await page.screenshot({ path: info.outputPath(`loop-body-${width}.png`) });
  });
}
