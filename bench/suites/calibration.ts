/**
 * Suite "calibration": throughput of calibration for the fixture detectors on the same 8 COCO images in
 * Chromium (onnxruntime-web WASM, the studio's own flow) and in onnxruntime-node, their ratio, and the
 * cost of the histogram methods relative to MinMax (Node). Then suite "calibration-methods": per fixture and
 * method, the held-out cosine at A8W8 per tensor and per channel and the calibration time against MinMax's
 * (cases/calibrationHeldOut.ts; the PP-OCRv4 text detector on the text scenes, the others on COCO).
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

/** The methods compared on held-out data, MinMax first (the baseline of the time ratio). */
export const HELD_OUT_METHODS = ['MinMax', 'Percentile', 'LayerwisePercentile', 'Entropy', 'MinMSE', 'ConsumerMSE'];
export const HELD_OUT_FIXTURES = ['ppocr-det', 'ultraface-rfb-320.onnx', 'yunet-n-dynamic.onnx', 'yolox-nano.onnx'];

/** Time against the same fixture's MinMax row, and whether each cosine is at least MinMax's. */
export function compareToMinMax(rows: Row[]): Row[] {
  for (const r of rows) {
    const base = rows.find((b) => b.model === r.model && b.method === 'MinMax');
    if (!base) continue;
    r.timeVsMinMax = +(Number(r.seconds) / Number(base.seconds)).toFixed(2);
    r.atLeastMinMax = Number(r.perTensor) >= Number(base.perTensor) && Number(r.perChannel) >= Number(base.perChannel) ? 'yes' : 'no';
  }
  return rows;
}

export const calibrationMethodsSuite: Suite = {
  name: 'calibration-methods',
  title: 'Calibration methods on held-out images: A8W8 output cosine per tensor and per channel, time against MinMax (onnxruntime-node judge)',
  columns: [
    ['model', 'model'],
    ['method', 'method'],
    ['images', 'calibrated on'],
    ['judged', 'judged on'],
    ['perTensor', 'cosine per tensor'],
    ['perChannel', 'cosine per channel'],
    ['seconds', 'calibration s'],
    ['timeVsMinMax', 'time vs MinMax'],
    ['atLeastMinMax', '≥ MinMax (both)'],
  ],
  async run() {
    const rows: Row[] = [];
    for (const model of HELD_OUT_FIXTURES) for (const method of HELD_OUT_METHODS) rows.push(await runCase('cases/calibrationHeldOut.ts', [model, method]));
    return compareToMinMax(rows);
  },
};
