/**
 * Suite "recover-browser": the time of each accuracy-recovery step (CLE, bias correction, AdaRound, AdaQuant)
 * on XINT8 for the fixture detectors in the studio itself, in Chromium's recovery worker, with the iteration
 * count of the Node suite "recover" (bench/suites/recover.ts), tuned on the same COCO 1–16. onnxruntime-web
 * WASM runs the models and the optimizers' matrix products (each step's Gram product, the float64 products that build
 * each layer's problem); the rest of the optimizers is TypeScript in the worker (no GPU here; see bench/README.md).
 * The Node times of the same steps are suite "recover".
 */
import path from 'node:path';
import { runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer } from '../previewServer.ts';
import { BENCH_ITERATIONS } from './recover.ts';

const root = path.resolve(import.meta.dirname, '../..');

const MODELS: [string, string][] = [
  ['yolox-nano.onnx', 'yolo'],
  ['ultraface-rfb-320.onnx', 'ultraface'],
  ['yunet-n-dynamic.onnx', 'bgr-255'],
];
const VARIANTS = ['cle', 'biasCorrection', 'adaround', 'adaquant'];

export const recoverBrowserSuite: Suite = {
  name: 'recover-browser',
  title: `Accuracy-recovery steps on XINT8 in Chromium (recovery worker), tuned on COCO 1–16, ${BENCH_ITERATIONS} iterations per layer`,
  columns: [
    ['model', 'model'],
    ['variant', 'step'],
    ['iterations', 'iterations'],
    ['algorithmSeconds', 'step s (Chromium)'],
    ['gatherSeconds', 'of which model runs s'],
    ['optimizerSeconds', 'of which optimizer s'],
    ['nodeSeconds', 'step s (Node, suite recover)'],
    ['cosineCalibration', 'cosine (calibration images)'],
    ['totalSeconds', 'click to result s'],
    ['error', 'error'],
  ],
  async run() {
    const rows: Row[] = [];
    await withPreviewServer({ port: PREVIEW_PORTS['recover-browser'], outDir: 'dist-bench-recover' }, async (url) => {
      for (const [model, preprocess] of MODELS) {
        for (const variant of VARIANTS) {
          try {
            rows.push(await runCase('cases/recoverBrowser.ts', [url, model, variant, BENCH_ITERATIONS, preprocess]));
          } catch (e) {
            rows.push({
              model,
              variant,
              algorithmSeconds: null,
              totalSeconds: null,
              error: String((e as Error).message)
                .split('\n')[0]
                .slice(0, 200),
            });
          }
        }
      }
    });
    // The same step's time in Node, from the last run of suite "recover" (bench/results/recover.json), when there is one.
    try {
      const fs = await import('node:fs');
      const node = JSON.parse(fs.readFileSync(path.join(root, 'bench/results/recover.json'), 'utf8')) as {
        rows: Row[];
      };
      for (const r of rows)
        r.nodeSeconds = node.rows.find((n) => n.model === r.model && n.variant === r.variant)?.algorithmSeconds ?? null;
    } catch {
      for (const r of rows) r.nodeSeconds = null;
    }
    return rows;
  },
};
