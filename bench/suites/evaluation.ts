/**
 * Suite "evaluation": time per image of comparing a quantized detector (XINT8) with its float model,
 * outputs only and layer by layer, in onnxruntime-node (the command line) and in Chromium (the
 * studio's evaluation worker, onnxruntime-web WASM), on the same 8 held-out COCO images.
 */
import { spawn, execFileSync } from 'node:child_process';
import path from 'node:path';
import { runCase, type Row, type Suite } from '../harness.ts';

const root = path.resolve(import.meta.dirname, '../..');
const PORT = 4397; // a port of its own: other suites serve their builds on 4393–4394
const DIST = 'dist-bench-evaluation';

async function withPreviewServer<T>(fn: (url: string) => Promise<T>): Promise<T> {
  execFileSync('npx', ['vite', 'build', '--outDir', DIST, '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  const server = spawn('npx', ['vite', 'preview', '--port', String(PORT), '--strictPort', '--outDir', DIST], { cwd: root, stdio: 'ignore', detached: true });
  const url = `http://localhost:${PORT}/`;
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(url)).ok) break;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    return await fn(url);
  } finally {
    process.kill(-server.pid!);
  }
}

const FIXTURES: [string, string][] = [
  ['ultraface-rfb-320.onnx', 'ultraface'],
  ['yolox-nano.onnx', 'yolo'],
  ['yunet-n-dynamic.onnx', 'bgr-255'],
];

export const evaluationSuite: Suite = {
  name: 'evaluation',
  title: 'Evaluation time per image, XINT8, 8 held-out COCO images (both models run per image)',
  columns: [
    ['model', 'model'],
    ['compare', 'compared'],
    ['runtime', 'runtime'],
    ['msPerImage', 'ms per image (model runs)'],
    ['totalSeconds', 'evaluation s (all in)'],
    ['firstRunSeconds', 'first run s (browser)'],
    ['meanCosine', 'mean output cosine'],
  ],
  async run() {
    const rows: Row[] = [];
    for (const [model] of FIXTURES) {
      for (const mode of ['outputs', 'layers']) rows.push(await runCase('cases/evaluationNode.ts', [model, mode]));
    }
    await withPreviewServer(async (url) => {
      for (const [model, preprocess] of FIXTURES) {
        for (const mode of ['outputs', 'layers']) {
          try {
            rows.push(await runCase('cases/evaluationBrowser.ts', [url, model, preprocess, mode]));
          } catch (e) {
            rows.push({ model, compare: mode, runtime: 'Chromium, onnxruntime-web WASM', msPerImage: null, totalSeconds: null, note: `failed: ${(e as Error).message.split('\n')[0]}` });
          }
        }
      }
    });
    return rows;
  },
};
