/**
 * Where the error comes from on a model with control flow, in the page: quantized with "Quantize inside control
 * flow", the evaluation's per-layer table lists the nodes inside the If's branches and the Loop's body (the
 * evaluation used to fail once such a tensor was among the worst: its histogram exposed it unread), and a body
 * node's link opens its body in the graph with the node selected. On the control-flow model the tests build in
 * code, with .npy samples; a screenshot of the table.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { dropFiles, evaluateAndWait, expect, openStudio, test, type PayloadFile } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

function controlFlowFile(file: string): PayloadFile {
  execFileSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'e2e/builders/controlFlowModel.ts'), file], {
    cwd: ROOT,
  });
  return { name: path.basename(file), mimeType: 'application/octet-stream', buffer: fs.readFileSync(file) };
}

/** A float32 .npy of shape [1, 4] (format 1.0), values in −1.5 … 1.5 varying with `seed`. */
function sample(name: string, seed: number): PayloadFile {
  let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4), }";
  while ((10 + header.length + 1) % 64 !== 0) header += ' ';
  header += '\n';
  const data = Float32Array.from({ length: 4 }, (_, i) => 1.5 * Math.sin(seed * 2.3 + i * 1.7));
  const buffer = Buffer.concat([
    Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 0xff, header.length >> 8]),
    Buffer.from(header),
    Buffer.from(data.buffer),
  ]);
  return { name, mimeType: 'application/octet-stream', buffer };
}

test('the per-layer table reaches inside If and Loop bodies, and a body node opens its body in the graph', async ({
  page,
}, info) => {
  await openStudio(page);
  await dropFiles(page.getByTestId('drop-zone'), controlFlowFile(info.outputPath('control-flow.onnx')));
  await expect(page.getByTestId('model-summary')).toBeVisible();
  await dropFiles(
    page.getByTestId('calibration-drop'),
    Array.from({ length: 8 }, (_, k) => sample(`c${k}.npy`, k)),
  );
  await page.getByTestId('quant-preset').selectOption('A8W8');
  await page.getByTestId('enable-subgraph').check();
  await page.getByTestId('calibrate-button').click();
  await expect(page.getByTestId('calibration-result')).toBeVisible({ timeout: 60_000 });
  await page.getByTestId('quantize-button').click();
  await expect(page.getByTestId('quantize-result')).toBeVisible({ timeout: 30_000 });

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
  await loopRow.scrollIntoViewIfNeeded();
  await page.screenshot({ path: info.outputPath('layers.png') });

  await loopRow.getByRole('button', { name: 'loop/body/body_matmul' }).click();
  await expect(page.getByTestId('graph-scope')).toContainText('loop · body');
  await expect(page.getByTestId('node-inspector')).toHaveAttribute('data-node-id', 'body_matmul');
});
