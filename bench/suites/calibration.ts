/**
 * Suite "calibration": throughput of calibration for the fixture detectors on the same 8 COCO images in
 * Chromium (onnxruntime-web WASM, the studio's own flow) and in onnxruntime-node, their ratio, and the
 * cost of the histogram methods relative to MinMax (Node). Then suite "calibration-methods": per fixture and
 * method, the held-out cosine at A8W8 per tensor and per channel and the calibration time against MinMax's
 * (cases/calibrationHeldOut.ts; the PP-OCRv4 text detector on the text scenes, the others on COCO).
 */
import { previousRows, runCase, type Row, type Suite } from '../harness.ts';
import { sharedMeanCosine } from '../cases/heldOut.ts';
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
      for (const method of ['MinMax', 'Percentile', 'Entropy', 'PowerOfTwoMinMSE'])
        rows.push(await runCase('cases/calibrationNode.ts', [model, method]));
    }
    await withPreviewServer({ port: PREVIEW_PORTS['calibration'], outDir: 'dist-bench-calibration' }, async (url) => {
      for (const [model, preprocess] of DETECTORS) {
        for (const preset of ['U8S8', 'XINT8'])
          rows.push(await runCase('cases/calibrationBrowser.ts', [url, model, preset, preprocess]));
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
export const HELD_OUT_METHODS = [
  'MinMax',
  'Percentile',
  'LayerwisePercentile',
  'Entropy',
  'MinMSE',
  'ConsumerMSE',
  'Sequential',
];
export const HELD_OUT_FIXTURES = ['ppocr-det', 'ultraface-rfb-320.onnx', 'yunet-n-dynamic.onnx', 'yolox-nano.onnx'];
/**
 * Without and with the function rules (enableNpuTransformer, the CLI's --attention: functions written out as several
 * nodes, HardSwish, SiLU, a scale-and-shift, get Q/DQ at their input and output only). A row without the field is 'off'.
 */
export const HELD_OUT_RULES = ['off', 'on'] as const;
const rulesOf = (r: Row) => (r.functionRules ?? 'off') as string;

type PerOutput = (number | null)[][];

/**
 * Time against the same fixture's MinMax row (with the same function rules), and whether each cosine is at least MinMax's. Where a method
 * and MinMax quantize different outputs to all zeros (a face detector's objectness on photos without faces),
 * their plain means average different outputs, so both are also taken over the outputs defined in both
 * (`…Shared`) and the comparison uses those. The per-output cosines are dropped from the rows afterwards.
 */
export function compareToMinMax(rows: Row[]): Row[] {
  for (const r of rows) {
    const base = rows.find((b) => b.model === r.model && b.method === 'MinMax' && rulesOf(b) === rulesOf(r));
    if (!base) continue;
    // Time ratios only between rows of the same protocol (both with CPU time, measured in one run of the suite).
    delete r.timeVsMinMax;
    delete r.cpuVsMinMax;
    if (r.cpuSeconds && base.cpuSeconds) {
      r.timeVsMinMax = +(Number(r.seconds) / Number(base.seconds)).toFixed(2);
      r.cpuVsMinMax = +(Number(r.cpuSeconds) / Number(base.cpuSeconds)).toFixed(2);
    }
    let atLeast = true;
    for (const key of ['perTensor', 'perChannel']) {
      let mine = Number(r[key]);
      let theirs = Number(base[key]);
      if ((r[`${key}ZeroOutputs`] || base[`${key}ZeroOutputs`]) && r[`${key}Outputs`] && base[`${key}Outputs`]) {
        const a = r[`${key}Outputs`] as unknown as PerOutput;
        const b = base[`${key}Outputs`] as unknown as PerOutput;
        mine = sharedMeanCosine(a, b) ?? NaN;
        theirs = sharedMeanCosine(b, a) ?? NaN;
        r[`${key}Shared`] = +mine.toFixed(5);
        r[`${key}MinMaxShared`] = +theirs.toFixed(5);
      } else if (r[`${key}Shared`] != null && r[`${key}MinMaxShared`] != null && !r[`${key}Outputs`]) {
        // A row carried over from the last results (its per-output cosines were dropped when recorded): the
        // comparison on shared outputs it was recorded with, not the plain means of different outputs.
        mine = Number(r[`${key}Shared`]);
        theirs = Number(r[`${key}MinMaxShared`]);
      }
      atLeast &&= mine >= theirs;
    }
    r.atLeastMinMax = atLeast ? 'yes' : 'no';
  }
  for (const r of rows) {
    delete r.perTensorOutputs;
    delete r.perChannelOutputs;
  }
  return rows;
}

export const calibrationMethodsSuite: Suite = {
  name: 'calibration-methods',
  title:
    'Calibration methods on held-out images: A8W8 output cosine per tensor and per channel, time against MinMax (onnxruntime-node judge)',
  columns: [
    ['model', 'model'],
    ['method', 'method'],
    ['functionRules', 'function rules'],
    ['images', 'calibrated on'],
    ['judged', 'judged on'],
    ['perTensor', 'cosine per tensor'],
    ['perChannel', 'cosine per channel'],
    ['perTensorShared', 'per tensor, outputs both define (vs MinMax)'],
    ['perChannelShared', 'per channel, outputs both define (vs MinMax)'],
    ['seconds', 'calibration s'],
    ['timeVsMinMax', 'time vs MinMax'],
    ['cpuSeconds', 'calibration CPU s'],
    ['cpuVsMinMax', 'CPU time vs MinMax'],
    ['atLeastMinMax', '≥ MinMax (both)'],
  ],
  async run() {
    // QS_BENCH_FIXTURES=a,b, QS_BENCH_METHODS=c,d and QS_BENCH_RULES=on (or off) run only those rows; the others are carried
    // over from the last results as they stand when this run ends (each row keeps its date of measurement in `measured`).
    const fixtures = process.env.QS_BENCH_FIXTURES?.split(',').filter(Boolean);
    const methods = process.env.QS_BENCH_METHODS?.split(',').filter(Boolean);
    const rules = process.env.QS_BENCH_RULES?.split(',').filter(Boolean);
    const runs = (model: string, method: string, rule: string) =>
      (!fixtures || fixtures.includes(model)) &&
      (!methods || methods.includes(method)) &&
      (!rules || rules.includes(rule));
    const same = (r: Row, model: string, method: string, rule: string) =>
      r.model === model && r.method === method && rulesOf(r) === rule;
    const fresh: Row[] = [];
    for (const rule of HELD_OUT_RULES) {
      for (const model of HELD_OUT_FIXTURES) {
        for (const method of HELD_OUT_METHODS) {
          if (!runs(model, method, rule)) continue;
          const row = await runCase(
            'cases/calibrationHeldOut.ts',
            rule === 'on' ? [model, method, 'functions'] : [model, method],
          );
          fresh.push({ ...row, measured: new Date().toISOString().slice(0, 10) });
        }
      }
    }
    const previous = fixtures || methods || rules ? previousRows('calibration-methods') : [];
    const rows: Row[] = [];
    for (const rule of HELD_OUT_RULES) {
      for (const model of HELD_OUT_FIXTURES) {
        for (const method of HELD_OUT_METHODS) {
          const row = runs(model, method, rule)
            ? fresh.find((r) => same(r, model, method, rule))
            : previous.find((r) => same(r, model, method, rule));
          if (row) rows.push({ ...row, functionRules: rule });
        }
      }
    }
    return compareToMinMax(rows);
  },
};
