/**
 * Suite "calibration": throughput of calibration for the fixture detectors on the same 8 COCO images in
 * Chromium (onnxruntime-web WASM, the studio's own flow) and in onnxruntime-node, their ratio, and the
 * cost of the histogram methods relative to MinMax (Node).
 */
import { runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer } from '../previewServer.ts';

const DETECTORS: [string, string][] = [
  ['ultraface-rfb-320.onnx', 'ultraface'],
  ['yolox-nano.onnx', 'yolo'],
];

export const calibrationSuite: Suite = {
  name: 'calibration',
  title: 'Calibration throughput, 8 COCO images (model load and image decoding included)',
  columns: [
    ['model', 'model'],
    ['method', 'method'],
    ['runtime', 'runtime'],
    ['imagesPerSecond', 'images/s'],
    ['seconds', 's'],
    ['firstRunSeconds', 'first run s (browser)'],
    ['relative', 'vs Node MinMax'],
  ],
  async run() {
    const rows: Row[] = [];
    for (const [model] of [...DETECTORS, ['yunet-n-dynamic.onnx', '']]) {
      for (const method of ['MinMax', 'Percentile', 'Entropy', 'PowerOfTwoMinMSE']) rows.push(await runCase('cases/calibrationNode.ts', [model, method]));
    }
    await withPreviewServer({ port: PREVIEW_PORTS['calibration'], outDir: 'dist-bench-calibration' }, async (url) => {
      for (const [model, preprocess] of DETECTORS) {
        for (const preset of ['U8S8', 'XINT8']) rows.push(await runCase('cases/calibrationBrowser.ts', [url, model, preset, preprocess]));
      }
    });
    // Speed relative to the same detector's MinMax in Node: <1 is slower (histogram methods, the browser).
    for (const r of rows) {
      const base = rows.find((b) => b.model === r.model && b.method === 'MinMax' && b.runtime === 'onnxruntime-node');
      if (base) r.relative = +(Number(r.imagesPerSecond) / Number(base.imagesPerSecond)).toFixed(2);
    }
    return rows;
  },
};
