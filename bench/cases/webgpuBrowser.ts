/**
 * WebGPU against WASM in the browser here (issue 34), for suite "webgpu-browser": Debian's Chromium with
 * `--enable-unsafe-webgpu`, whose adapter on this machine is the software one ("google swiftshader": no GPU here).
 * The page's own onnxruntime-web builds (`onnxruntime-web/wasm`, one thread, and `onnxruntime-web/webgpu`, the
 * native WebGPU backend) run a fixture model in a fresh browser each time, the backends alternating: what each
 * costs to start (module, adapter and session), its first run (WebGPU's shader compilation) and a steady run (the
 * median of three after it), on one random input of the model's shape. These are the costs the page's Auto weighs
 * (workers/runtime/backendChoice.ts); `startupRuns` is WebGPU's start-up beyond WASM's in steady WASM runs, the unit
 * of its prior. The files are served by Playwright's routing on localhost (a secure context, so WebGPU is exposed);
 * nothing listens on the port. Usage: webgpuBrowser.ts <model file> <dims, e.g. 1x3x240x320> <repeats>
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FIXTURES, launchChromium } from './browser.ts';
import { median } from '../suites/calibrationSpeed.ts';

const [model, dimsArg, repeatsArg] = process.argv.slice(2);
const dims = dimsArg.split('x').map(Number);
const repeats = Number(repeatsArg);
const ORIGIN = 'http://localhost:5734';
const ORT_DIST = path.resolve(import.meta.dirname, '../../node_modules/onnxruntime-web/dist');
const BUILDS = { wasm: 'ort.wasm.bundle.min.mjs', webgpu: 'ort.webgpu.bundle.min.mjs' } as const;
type Backend = keyof typeof BUILDS;

interface Costs {
  startMs: number;
  firstRunMs: number;
  steadyMs: number;
  adapter: string | null;
}

async function measure(backend: Backend): Promise<Costs> {
  const browser = await launchChromium(['--enable-unsafe-webgpu']);
  try {
    const page = await browser.newPage();
    // tsx names the functions it compiles (__name); the page has no such helper.
    await page.addInitScript({ content: 'globalThis.__name = (f) => f;' });
    await page.route(`${ORIGIN}/**`, async (route) => {
      const name = new URL(route.request().url()).pathname.slice(1);
      if (name === '' || name === 'index.html')
        return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>webgpu bench</title>' });
      if (name === 'model.onnx')
        return route.fulfill({
          contentType: 'application/octet-stream',
          body: fs.readFileSync(path.join(FIXTURES, 'models', model)),
        });
      const file = path.join(ORT_DIST, path.basename(name));
      if (!fs.existsSync(file)) return route.fulfill({ status: 404, body: 'not found' });
      const type = file.endsWith('.wasm') ? 'application/wasm' : 'text/javascript';
      return route.fulfill({ contentType: type, body: fs.readFileSync(file) });
    });
    await page.goto(`${ORIGIN}/index.html`);
    return await page
      .evaluate(
        async ({ build, backend, dims }) => {
          const bytes = new Uint8Array(await (await fetch('/model.onnx')).arrayBuffer());
          const gpu = (
            navigator as unknown as {
              gpu?: { requestAdapter(): Promise<{ info?: { vendor: string; architecture: string } } | null> };
            }
          ).gpu;
          const adapterInfo = gpu ? (await gpu.requestAdapter())?.info : undefined;
          const t0 = performance.now();
          // eslint-disable-next-line @typescript-eslint/no-explicit-any
          const ort: any = await import(/* @vite-ignore */ `/${build}`);
          ort.env.logLevel = 'error';
          ort.env.wasm.numThreads = 1;
          const session = await ort.InferenceSession.create(bytes, {
            executionProviders: [backend],
            graphOptimizationLevel: 'basic',
          });
          const startMs = performance.now() - t0;
          const size = dims.reduce((a, b) => a * b, 1);
          const data = new Float32Array(size);
          for (let i = 0; i < size; i++) data[i] = Math.random();
          const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', data, dims) };
          const run = async () => {
            const t = performance.now();
            const out = await session.run(feeds);
            for (const v of Object.values(out) as { getData?: () => Promise<unknown> }[]) await v.getData?.();
            return performance.now() - t;
          };
          const firstRunMs = await run();
          const steady = [await run(), await run(), await run()];
          await session.release();
          return {
            startMs,
            firstRunMs,
            steady,
            adapter: adapterInfo ? `${adapterInfo.vendor} ${adapterInfo.architecture}` : null,
          };
        },
        { build: BUILDS[backend], backend, dims },
      )
      .then((r) => ({ startMs: r.startMs, firstRunMs: r.firstRunMs, steadyMs: median(r.steady), adapter: r.adapter }));
  } finally {
    await browser.close();
  }
}

const runs: Record<Backend, Costs[]> = { wasm: [], webgpu: [] };
const loads: number[] = [];
for (let r = 0; r < repeats; r++) {
  // Alternate which backend goes first, so neither always meets the same moment of the machine's load.
  for (const b of (r % 2 === 0 ? ['wasm', 'webgpu'] : ['webgpu', 'wasm']) as Backend[]) {
    loads.push(os.loadavg()[0]);
    runs[b].push(await measure(b));
  }
}
const med = (b: Backend, k: 'startMs' | 'firstRunMs' | 'steadyMs') => +median(runs[b].map((c) => c[k])).toFixed(1);
const wasm = { start: med('wasm', 'startMs'), first: med('wasm', 'firstRunMs'), steady: med('wasm', 'steadyMs') };
const webgpu = {
  start: med('webgpu', 'startMs'),
  first: med('webgpu', 'firstRunMs'),
  steady: med('webgpu', 'steadyMs'),
};
// WebGPU's start-up beyond WASM's (session and first run over a steady one), counted in steady WASM runs.
const extra =
  webgpu.start + Math.max(0, webgpu.first - webgpu.steady) - (wasm.start + Math.max(0, wasm.first - wasm.steady));
console.log(
  JSON.stringify({
    model,
    input: dimsArg,
    repeats,
    adapter: runs.webgpu[0]?.adapter ?? null,
    wasmStartMs: wasm.start,
    wasmFirstRunMs: wasm.first,
    wasmSteadyMs: wasm.steady,
    webgpuStartMs: webgpu.start,
    webgpuFirstRunMs: webgpu.first,
    webgpuSteadyMs: webgpu.steady,
    runRatio: +(webgpu.steady / wasm.steady).toFixed(2),
    startupRuns: +(extra / wasm.steady).toFixed(1),
    wasmSteadyRangeMs: `${Math.min(...runs.wasm.map((c) => c.steadyMs)).toFixed(1)}–${Math.max(...runs.wasm.map((c) => c.steadyMs)).toFixed(1)}`,
    webgpuSteadyRangeMs: `${Math.min(...runs.webgpu.map((c) => c.steadyMs)).toFixed(0)}–${Math.max(...runs.webgpu.map((c) => c.steadyMs)).toFixed(0)}`,
    loadAverage: `${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`,
  }),
);
