/**
 * The graph view opens subgraphs as Netron does: an If's inspector offers its then and else branches, a Loop's its
 * body; "Open" draws that subgraph with the same boxes (its nodes, a nested If that opens in turn), the path back sits
 * above the canvas, and "Main graph" returns. Tensors a body reads from an enclosing scope are drawn as its inputs
 * ("outer scope"), weights of an enclosing scope stay weights. On the control-flow model the tests build in code;
 * screenshots at 1440 and 900 px wide.
 */
import type { Page } from '@playwright/test';
import { controlFlowFile, openGraph, paintedAtRest, selectBox as select } from './graphPage.ts';
import { expect, test } from './support.ts';

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
    // Inside a body only single nodes are picked (start/end subgraphs are the main graph's).
    await expect(page.getByTestId('pick-mode-node')).toBeVisible();
    await expect(page.getByTestId('pick-mode-start')).toHaveCount(0);
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
