/**
 * The sample's one click, measured as a newcomer meets it: Debian's Chromium opens the built page (served by
 * `vite preview` on the URL given), "Quantize the sample" is clicked, and the time until the report shows is
 * taken; the quantized model is downloaded. Then an independent judge: the same held-out scenes (drawn by the
 * page's own code, in the same Chromium, through a Vite dev server on `devPort`) are written as PNG files and
 * onnxruntime-node compares the float model with the downloaded one on them (`qstudio evaluate`).
 * Usage: sampleBrowser.ts <url> <devPort>
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer } from 'vite';
import { withStudioPage } from './browser.ts';
import { TEXT_DETECTOR, textDetectorPreprocess } from './textScenes.ts';

const [url, devPort] = process.argv.slice(2);
const root = path.resolve(import.meta.dirname, '../..');
const work = path.join(root, 'bench/tmp/sample');
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(path.join(work, 'held-out'), { recursive: true });
const load = os.loadavg()[0];

const page = await withStudioPage(url, async (page) => {
  const start = performance.now();
  await page.getByTestId('quantize-sample-button').click();
  const run = page.getByTestId('sample-run');
  await page
    .locator('[data-testid="sample-run"][data-status="done"], [data-testid="sample-run"][data-status="error"]')
    .waitFor({ timeout: 1_800_000 });
  await page.getByTestId('eval-result').waitFor();
  const seconds = (performance.now() - start) / 1000;
  if ((await run.getAttribute('data-status')) === 'error')
    throw new Error(`sample run failed: ${await page.getByTestId('sample-error').textContent()}`);
  const cosine = Number(await page.getByTestId('eval-mean-cosine').textContent());
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByTestId('sample-download-model').click(),
  ]);
  await download.saveAs(path.join(work, 'ppocr-det.quant.onnx'));
  return { seconds, cosine };
});

// The held-out scenes as PNG files, drawn by the page's own sample service in the same Chromium.
const server = await createServer({ root, logLevel: 'error', server: { port: Number(devPort), strictPort: true } });
await server.listen();
let preprocess: unknown;
try {
  await withStudioPage(`http://localhost:${devPort}/`, async (p) => {
    const drawn = await p.evaluate(async () => {
      const { sampleService } = await import('/src/ui/services/sampleService.ts' as string);
      const files: File[] = await sampleService.images('heldOut', sampleService.counts.heldOut);
      return {
        size: sampleService.size,
        files: await Promise.all(
          files.map(async (f) => ({ name: f.name, bytes: Array.from(new Uint8Array(await f.arrayBuffer())) })),
        ),
      };
    });
    for (const f of drawn.files) fs.writeFileSync(path.join(work, 'held-out', f.name), Buffer.from(f.bytes));
    preprocess = textDetectorPreprocess(drawn.size.height, drawn.size.width);
  });
} finally {
  await server.close();
}
fs.writeFileSync(path.join(work, 'preprocess.json'), JSON.stringify(preprocess));

const float = TEXT_DETECTOR.model;
const judged = JSON.parse(
  execFileSync(
    process.execPath,
    [
      path.join(root, 'bin/qstudio.js'),
      'evaluate',
      float,
      path.join(work, 'ppocr-det.quant.onnx'),
      '--data',
      path.join(work, 'held-out'),
      '--preprocess',
      path.join(work, 'preprocess.json'),
      '--json',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  ),
);
const nodeCosine = judged.fidelity?.meanCosine ?? judged.outputs?.[0]?.metrics?.cosine?.mean ?? null;

console.log(
  JSON.stringify({
    clickToReportSeconds: +page.seconds.toFixed(1),
    pageCosineHeldOut: page.cosine,
    nodeCosineHeldOut: nodeCosine === null ? null : +nodeCosine.toFixed(6),
    heldOutImages: fs.readdirSync(path.join(work, 'held-out')).length,
    loadAverage: +load.toFixed(1),
  }),
);
