/**
 * A model over 2 GiB in the studio itself (issue 19): an MLP with `bytes` of weights in external data
 * (bench/largeModel.ts) is written to a temporary folder, and Debian's Chromium opens the built page (served by
 * `vite preview` on the URL given), picks the .onnx and its .onnx.data as a user's file dialog gives them,
 * waits for the summary and the drawn graph, calibrates (XINT8, preprocessing "unit") on COCO images, quantizes, downloads the
 * .quant.onnx + .quant.onnx.data, and evaluates in the page (float against quantized, on the calibration
 * images, without the per-layer comparison). Each step is timed from its click to its result on the page.
 *
 * Memory: the proportional set size (PSS, so pages shared between Chromium's processes count once) of every
 * process under this one (the browser and its renderer, GPU and utility processes) is sampled every 0.5 s;
 * the peak of the sum is reported per step. Afterwards onnxruntime-node (the independent judge) loads the
 * downloaded model and the float one and compares their outputs on a fixed input (every pixel 0.5) and on a
 * seeded random one. The model and the downloads are removed at the end.
 * Usage: node --import tsx bench/cases/largeModelBrowser.ts <url> <bytes> <calibration images>
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import type { Page } from '@playwright/test';
import { writeLargeModel } from '../largeModel.ts';
import { cosineSimilarity as cosine } from '../../src/core/metrics/cosine.ts';
import { cocoFile, cocoNames, withStudioPage } from './browser.ts';

const [url, bytesArg, imageCount = '2'] = process.argv.slice(2);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-bench-large-page-'));

/** PSS in MB of this process's descendants (not this process itself). */
function descendantsPssMB(): number {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  let kb = 0;
  const stack = [...(children.get(process.pid) ?? [])];
  while (stack.length) {
    const pid = stack.pop()!;
    stack.push(...(children.get(pid) ?? []));
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (m) kb += Number(m[1]);
    } catch {
      // gone meanwhile
    }
  }
  return Math.round(kb / 1024);
}

let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, descendantsPssMB())), 500);
/** Runs one step; its seconds and the peak PSS seen during it (the peak is reset at the step's start). */
async function step(fn: () => Promise<void>): Promise<{ s: number; peakMB: number }> {
  peak = descendantsPssMB();
  const start = performance.now();
  await fn();
  const s = +((performance.now() - start) / 1000).toFixed(1);
  return { s, peakMB: Math.max(peak, descendantsPssMB()) };
}

async function failIfError(page: Page, testId: string): Promise<void> {
  const error = page.getByTestId(testId);
  if (await error.count()) throw new Error(`${testId}: ${(await error.first().textContent())?.slice(0, 300)}`);
}

async function outputsOf(modelPath: string, inputs: Float32Array[]): Promise<Float32Array[]> {
  const session = await ort.InferenceSession.create(modelPath, { graphOptimizationLevel: 'basic' });
  try {
    const out: Float32Array[] = [];
    for (const x of inputs)
      out.push(
        (await session.run({ image: new ort.Tensor('float32', x, [1, 3, 32, 32]) })).logits.data as Float32Array,
      );
    return out;
  } finally {
    await session.release();
  }
}

try {
  const files = writeLargeModel(dir, Number(bytesArg));
  const images = cocoNames().slice(0, Number(imageCount));
  const row = await withStudioPage(url, async (page) => {
    const open = await step(async () => {
      await page.getByTestId('file-input').setInputFiles([files.onnx, files.data]);
      await page
        .locator('[data-testid="model-summary"], [data-testid="model-error"]')
        .first()
        .waitFor({ timeout: 1_800_000 });
      await failIfError(page, 'model-error');
      await page.locator('[data-testid="graph-workspace"][data-graph-drawn="true"]').waitFor({ timeout: 600_000 });
    });
    const nodes = Number(await page.getByTestId('summary-node-count').textContent());
    await page.getByTestId('calibration-drop').drop({ files: images.map(cocoFile) });
    await page.getByTestId('preprocess-preset').selectOption('unit');
    await page.getByTestId('quant-preset').selectOption('XINT8');
    const calibrate = await step(async () => {
      await page.getByTestId('calibrate-button').click();
      await page
        .locator('[data-testid="calibration-result"], [data-testid="calibration-error"]')
        .first()
        .waitFor({ timeout: 3_600_000 });
      await failIfError(page, 'calibration-error');
    });
    const quantize = await step(async () => {
      await page.getByTestId('quantize-button').click();
      await page
        .locator('[data-testid="quantize-result"], [data-testid="quantize-error"]')
        .first()
        .waitFor({ timeout: 3_600_000 });
      await failIfError(page, 'quantize-error');
    });
    const out = path.join(dir, 'out');
    fs.mkdirSync(out);
    const download = await step(async () => {
      const [model] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-model').click()]);
      await model.saveAs(path.join(out, model.suggestedFilename()));
      const [data] = await Promise.all([
        page.waitForEvent('download', { timeout: 600_000 }),
        page.getByTestId('download-model-data').click(),
      ]);
      await data.saveAs(path.join(out, data.suggestedFilename()));
    });
    let pageCosine: number | null = null;
    let evaluateError = '';
    const evaluate = await step(async () => {
      await page.getByTestId('eval-layers-toggle').uncheck();
      await page.getByTestId('evaluate-button').click();
      await page
        .locator('[data-testid="eval-result"], [data-testid="eval-error"]')
        .first()
        .waitFor({ timeout: 3_600_000 });
      if (await page.getByTestId('eval-error').count())
        evaluateError = (await page.getByTestId('eval-error').first().textContent())?.slice(0, 200) ?? 'error';
      else pageCosine = Number(await page.getByTestId('eval-mean-cosine').textContent());
    });
    return { nodes, open, calibrate, quantize, download, evaluate, pageCosine, evaluateError, out };
  });
  clearInterval(sampler);

  // The judge: onnxruntime-node loads the downloaded .onnx (+ .onnx.data beside it) and the float model.
  const written = fs.readdirSync(row.out);
  const quantPath = path.join(
    row.out,
    written.find((f) => f.endsWith('.onnx'))!,
  );
  let seed = 7;
  const random = new Float32Array(3 * 32 * 32).map(() => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
  const inputs = [new Float32Array(3 * 32 * 32).fill(0.5), random];
  const q = await outputsOf(quantPath, inputs);
  const f = await outputsOf(files.onnx, inputs);
  console.log(
    JSON.stringify({
      weightsGB: +(files.dataBytes / 1e9).toFixed(2),
      weightsGiB: +(files.dataBytes / 2 ** 30).toFixed(2),
      layers: files.layers,
      nodes: row.nodes,
      images: Number(imageCount),
      openS: row.open.s,
      calibrateS: row.calibrate.s,
      quantizeS: row.quantize.s,
      downloadS: row.download.s,
      evaluateS: row.evaluateError ? null : row.evaluate.s,
      peakOpenMB: row.open.peakMB,
      peakCalibrateMB: row.calibrate.peakMB,
      peakQuantizeMB: row.quantize.peakMB,
      peakDownloadMB: row.download.peakMB,
      peakEvaluateMB: row.evaluate.peakMB,
      written: written
        .map((name) => `${name} ${(fs.statSync(path.join(row.out, name)).size / 1e9).toFixed(3)} GB`)
        .join(', '),
      pageCosine: row.pageCosine,
      evaluateError: row.evaluateError,
      judgeCosineFixed: +cosine(q[0], f[0]).toFixed(6),
      judgeCosineRandom: +cosine(q[1], f[1]).toFixed(6),
    }),
  );
} finally {
  clearInterval(sampler);
  fs.rmSync(dir, { recursive: true, force: true });
}
