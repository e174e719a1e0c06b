/**
 * Where the error comes from on a model with control flow, in the page: quantized with "Quantize inside control
 * flow", the evaluation's per-layer table lists the nodes inside the If's branches and the Loop's body (the
 * evaluation used to fail once such a tensor was among the worst: its histogram exposed it unread), and a body
 * node's link opens its body in the graph with the node selected. On the control-flow model the tests build in
 * code, with .npy samples; a screenshot of the table.
 */
import { controlFlowFile, controlFlowSample as sample, quantizeControlFlowInsideBodies } from './graphPage.ts';
import { dropFiles, evaluateAndWait, expect, openStudio, test } from './support.ts';

test('the per-layer table reaches inside If and Loop bodies, and a body node opens its body in the graph', async ({
  page,
}, info) => {
  await openStudio(page);
  await dropFiles(page.getByTestId('drop-zone'), controlFlowFile(info.outputPath('control-flow.onnx')));
  await expect(page.getByTestId('model-summary')).toBeVisible();
  await quantizeControlFlowInsideBodies(page);

  await dropFiles(
    page.getByTestId('eval-drop'),
    Array.from({ length: 6 }, (_, k) => sample(`e${k}.npy`, 20 + k)),
  );
  await evaluateAndWait(page);
  const rows = page.getByTestId('eval-layer-row');
  await expect(rows.first()).toBeVisible();
  const names = (await rows.allInnerTexts()).join('\n');
  expect(names).toMatch(/loop\/body\/body_matmul/);
  expect(names).toMatch(/if\/(then|else)_branch\//);
  const loopRow = rows.filter({ hasText: 'loop/body/body_matmul' });
  // A body node's precision, as a main-graph node's: the Loop's MatMul quantized at 8 bits.
  await expect(loopRow.getByTestId('eval-layer-precision')).toHaveAttribute('data-precision', 'int8');
  await expect(loopRow.getByTestId('eval-layer-precision')).toContainText('A8W8');
  await loopRow.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('layers.png') });

  await loopRow.getByRole('button', { name: 'loop/body/body_matmul' }).click();
  await expect(page.getByTestId('graph-scope')).toContainText('loop · body');
  await expect(page.getByTestId('node-inspector')).toHaveAttribute('data-node-id', 'body_matmul');
});
