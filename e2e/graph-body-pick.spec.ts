/**
 * Keeping a node inside a control-flow body float, on the page (issue 33, control flow): on the control-flow model the
 * tests build in code, the Loop's body is opened from its inspector, a body node is picked (Node mode and a click, and
 * by keyboard: Ctrl+Enter on the selected node) and excluded; the body shades it, its inspector says which entry keeps
 * it float, the main view's exclusion list and the Loop's inspector name it with where its body is, a second pick is removed again. Quantized
 * with "Quantize inside control flow", the report lists the node kept float; the downloaded model feeds it no
 * DequantizeLinear while another body node is quantized, and it loads and runs in onnxruntime-node at its default
 * options and at 'basic'. Screenshots of the body and of the list.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import { controlFlowFile, openGraph, paintedAtRest, quantizeControlFlowInsideBodies, selectBox } from './graphPage.ts';
import { expect, test } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

/** How a body node is fed in a written model (e2e/builders/bodyNodeInputs.ts). */
function bodyNodeInputs(file: string, id: string): { op: string | null; fromDequantize?: string[] } {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', path.join(ROOT, 'e2e/builders/bodyNodeInputs.ts'), file, id],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return JSON.parse(out) as { op: string | null; fromDequantize?: string[] };
}

const excludedBoxes = (page: import('@playwright/test').Page) =>
  page.evaluate(() => window.__qsGraph!.idsWith('excluded').sort());

test('a node inside a Loop body is picked, kept float, named in the list, and stays float in the written model', async ({
  page,
}, info) => {
  test.setTimeout(120_000);
  await openGraph(page, controlFlowFile(info.outputPath('control-flow.onnx')));
  await selectBox(page, 'loop');
  await page.getByTestId('open-subgraph-body').click();
  await expect(page.getByTestId('graph-scope')).toContainText('loop · body');
  await expect(page.getByTestId('graph-scope-note')).toContainText('single nodes can be kept float');
  await expect(page.getByTestId('add-subgraph')).toHaveCount(0);

  // Node mode and a click pick body_matmul by its scoped id; the chip reads as its id in the body.
  await page.getByTestId('pick-mode-node').click();
  await selectBox(page, 'body_matmul');
  await expect(page.getByTestId('pick-list')).toHaveText(/body_matmul/);
  expect(await page.evaluate(() => window.__qsGraph!.idsWith('picked'))).toEqual(['body_matmul']);
  await expect(page.getByTestId('exclusion-name')).toHaveAttribute('placeholder', 'body_matmul (inside loop · body)');
  await page.getByTestId('add-nodes').click();
  await expect(page.getByTestId('pick-added')).toContainText('body_matmul (inside loop · body)');
  await expect.poll(() => excludedBoxes(page)).toEqual(['body_matmul']);
  await expect(page.getByTestId('inspector-excluded')).toContainText('body_matmul (inside loop · body)');

  // By keyboard, in Inspect mode: select body_tanh, Ctrl+Enter picks it; it is excluded, then removed again.
  await page.getByTestId('pick-mode-inspect').click();
  await selectBox(page, 'body_tanh');
  await page.getByTestId('graph-canvas').focus();
  await page.keyboard.press('Control+Enter');
  await expect(page.getByTestId('pick-list')).toHaveText(/body_tanh/);
  await page.getByTestId('add-nodes').click();
  await expect.poll(() => excludedBoxes(page)).toEqual(['body_matmul', 'body_tanh']);
  const entries = page.getByTestId('exclusion-entry');
  await expect(entries).toHaveCount(2);
  await expect(entries.nth(0)).toContainText('1 node (1 inside subgraphs)');
  await expect(entries.nth(0)).toContainText('body_matmul (inside loop · body)');
  await page.getByTestId('graph-workspace').evaluate((e) => e.scrollIntoView({ block: 'start' }));
  await paintedAtRest(page);
  await page.screenshot({ path: info.outputPath('loop-body-excluded.png') });
  await entries.nth(1).getByTestId('exclusion-remove').click();
  await expect(entries).toHaveCount(1);
  await expect.poll(() => excludedBoxes(page)).toEqual(['body_matmul']);

  // The main graph: no exclusion is called a problem there, and the list still names the body node with its body.
  await page.getByTestId('graph-scope-main').click();
  await expect(page.getByTestId('graph-scope')).toHaveCount(0);
  await expect(page.getByTestId('graph-exclusion-problems')).toHaveCount(0);
  // The Loop's inspector says a node of its body stays float, and by which entry.
  await selectBox(page, 'loop');
  await expect(page.getByTestId('inspector-excluded-inside')).toContainText('body_matmul (inside loop · body)');
  await expect(page.getByTestId('inspector-excluded')).toHaveCount(0);
  await expect(entries.nth(0)).toContainText('body_matmul (inside loop · body)');
  // Hovering the entry on the main graph highlights the Loop that holds its node (it highlighted nothing), and the
  // Loop itself is not shaded as excluded.
  await entries.nth(0).hover();
  await expect.poll(() => page.evaluate(() => window.__qsGraph!.idsWith('hovered').sort())).toEqual(['loop']);
  await expect.poll(() => excludedBoxes(page)).toEqual([]);
  await entries.nth(0).scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('exclusion-list.png') });

  await quantizeControlFlowInsideBodies(page);
  const kept = page.getByTestId('report-float-body-nodes');
  await expect(kept).toContainText('1 node');
  await kept.locator('summary').click();
  await expect(kept).toContainText('loop/body/body_matmul');
  await kept.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('report.png') });

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
  const saved = info.outputPath('control-flow.quant.onnx');
  await download.saveAs(saved);
  expect(bodyNodeInputs(saved, 'loop/body/body_matmul')).toEqual(
    expect.objectContaining({ op: 'MatMul', fromDequantize: [] }),
  );
  // The other bodies were quantized: the If's then branch reads its Gemm's inputs through DequantizeLinear.
  expect(bodyNodeInputs(saved, 'if/then_branch/then_gemm').fromDequantize?.length).toBeGreaterThan(0);
  for (const level of ['all', 'basic'] as const) {
    const session = await ort.InferenceSession.create(saved, { graphOptimizationLevel: level });
    const out = await session.run({ x: new ort.Tensor('float32', Float32Array.from([0.5, -1, 1.2, 0.3]), [1, 4]) });
    expect([...(out[session.outputNames[0]].data as Float32Array)].every(Number.isFinite), level).toBe(true);
    await session.release();
  }
});
