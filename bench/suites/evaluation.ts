/**
 * Suite "evaluation": time per image of comparing a quantized detector (XINT8) with its float model,
 * outputs only and layer by layer, in onnxruntime-node (the command line) and in Chromium (the
 * studio's evaluation worker, onnxruntime-web WASM), on the same 8 held-out COCO images.
 */
import { runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer } from '../previewServer.ts';

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
    await withPreviewServer({ port: PREVIEW_PORTS['evaluation'], outDir: 'dist-bench-evaluation' }, async (url) => {
      for (const [model, preprocess] of FIXTURES) {
        for (const mode of ['outputs', 'layers']) {
          try {
            rows.push(await runCase('cases/evaluationBrowser.ts', [url, model, preprocess, mode]));
          } catch (e) {
            rows.push({
              model,
              compare: mode,
              runtime: 'Chromium, onnxruntime-web WASM',
              msPerImage: null,
              totalSeconds: null,
              note: `failed: ${(e as Error).message.split('\n')[0]}`,
            });
          }
        }
      }
    });
    return rows;
  },
};
