/**
 * Suite "webgpu-browser": WebGPU against WASM in the page's browser here (issue 34), where the only adapter is
 * the software one (no GPU on this machine): each backend's start, first run and steady run on fixture models,
 * in a fresh Chromium each time, the backends alternating (cases/webgpuBrowser.ts). Medians over
 * QS_BENCH_REPEATS (default 3), with the load average beside them. These are the software adapter's figures the
 * backend choice's tests replay (workers/runtime/backendChoice.test.ts). Then the sample's one click in the built
 * page with the adapter present and without it (cases/sampleWebgpuBrowser.ts; QS_BENCH_SAMPLE_REPEATS, default 1;
 * QS_BENCH_SAMPLE=0 leaves it out; QS_BENCH_MODELS=0 keeps the model rows last recorded and measures the sample only).
 */
import { previousRows, runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer } from '../previewServer.ts';

/** Fixture models and the input shape each runs at. */
const MODELS: [string, string][] = [
  ['mnist.onnx', '1x1x28x28'],
  ['ultraface-rfb-320.onnx', '1x3x240x320'],
];

export const webgpuBrowserSuite: Suite = {
  name: 'webgpu-browser',
  title: 'WebGPU against WASM in Chromium here: the software adapter (google swiftshader), no GPU (issue 34)',
  columns: [
    ['model', 'model'],
    ['adapter', 'adapter'],
    ['wasmStartMs', 'WASM start ms'],
    ['wasmFirstRunMs', 'WASM first run ms'],
    ['wasmSteadyMs', 'WASM steady run ms'],
    ['webgpuStartMs', 'WebGPU start ms'],
    ['webgpuFirstRunMs', 'WebGPU first run ms'],
    ['webgpuSteadyMs', 'WebGPU steady run ms'],
    ['runRatio', 'WebGPU / WASM run'],
    ['startupRuns', 'WebGPU extra start-up, WASM runs'],
    ['sampleWithAdapterSeconds', 'sample, adapter present: click to report s'],
    ['sampleWithoutAdapterSeconds', 'sample, no adapter: click to report s'],
    ['sampleRatio', 'present / none'],
    ['repeats', 'repeats'],
    ['loadAverage', 'load average'],
    ['error', 'error'],
  ],
  async run() {
    const repeats = process.env.QS_BENCH_REPEATS ?? '3';
    const rows: Row[] = [];
    if (process.env.QS_BENCH_MODELS === '0') rows.push(...previousRows('webgpu-browser').filter((r) => r.input));
    else
      for (const [model, dims] of MODELS) {
        try {
          rows.push(await runCase('cases/webgpuBrowser.ts', [model, dims, repeats]));
        } catch (e) {
          rows.push({
            model,
            error: String((e as Error).message)
              .split('\n')[0]
              .slice(0, 200),
          });
        }
      }
    if (process.env.QS_BENCH_SAMPLE !== '0') {
      const port = PREVIEW_PORTS['webgpu-browser'];
      await withPreviewServer({ port, outDir: 'dist-bench-webgpu' }, async (url) => {
        try {
          rows.push(await runCase('cases/sampleWebgpuBrowser.ts', [url, process.env.QS_BENCH_SAMPLE_REPEATS ?? '1']));
        } catch (e) {
          rows.push({
            model: 'the sample',
            error: String((e as Error).message)
              .split('\n')[0]
              .slice(0, 200),
          });
        }
      });
    }
    return rows;
  },
};
