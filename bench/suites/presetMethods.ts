/**
 * Suite "preset-methods": each preset's calibration method against the alternatives, held out on every benchmarked
 * model at both onnxruntime levels ('all', onnxruntime's default; 'basic', the model's own Q/DQ arithmetic), as
 * bench/cases/presetHeldOut.ts measures the guard's figures (the same splits, the same judge). A preset's default
 * method changes only where another is at least as good on every model at both levels (issue 30, point 3).
 * QS_METHODS_ONLY=<substring> measures only the matching cases and keeps the others' recorded rows; each row is
 * recorded as soon as it is measured (a long run that stops keeps what it measured).
 */
import { previousRows, record, runCase, type Row, type Suite } from '../harness.ts';

/** The models every method is judged on: the fixture detectors, the PP-OCRv4 detector and recognizer. */
export const METHOD_MODELS = [
  'ppocr-det',
  'yolox-nano.onnx',
  'yunet-n-dynamic.onnx',
  'ultraface-rfb-320.onnx',
  'ultraface-rfb-320-nopost.onnx',
  'ppocr-rec',
];
/** The float-scale methods src/core/calibrate offers as a preset's method (Sequential and the MSE searches are steps of their own). */
export const FLOAT_SCALE_METHODS = ['Percentile', 'Entropy', 'MinMSE', 'MinMax'];
const PRESETS = ['A8W8'];

/** Beside the fixed methods: the method chosen per model on the calibration samples alone (core/evaluate/calibrationMethodChoice.ts). */
export const CHOSEN_METHOD = 'held-in';

export const METHOD_CASES: string[][] = PRESETS.flatMap((preset) =>
  METHOD_MODELS.flatMap((model) =>
    [...FLOAT_SCALE_METHODS, CHOSEN_METHOD].map((method) => [model, preset, `method=${method}`]),
  ),
);

// A held-in row is one case whatever it chose.
const key = (r: Row) =>
  `${r.model} ${r.preset} ${r.variant} ${String(r.method).startsWith(CHOSEN_METHOD) ? CHOSEN_METHOD : r.method}`;

export const presetMethodsSuite: Suite = {
  name: 'preset-methods',
  title:
    "Each preset's calibration method against the alternatives, held out on every benchmarked model at onnxruntime's default ('all') and at 'basic'",
  columns: [
    ['model', 'model'],
    ['preset', 'preset'],
    ['variant', 'weights'],
    ['method', 'method'],
    ['images', 'calibration / judged'],
    ['metric', 'figure'],
    ['all', "'all' (default)"],
    ['basic', "'basic'"],
    ['detail', 'detail'],
    ['choice', "held-in cosines (even calibration samples calibrate, odd judge, at 'all')"],
    ['seconds', 's'],
    ['measured', 'measured'],
  ],
  async run() {
    const only = process.env.QS_METHODS_ONLY;
    const today = new Date().toISOString().slice(0, 10);
    let rows = previousRows('preset-methods');
    for (const args of METHOD_CASES) {
      if (only && !args.join(' ').includes(only)) continue;
      const row: Row = { ...(await runCase('cases/presetHeldOut.ts', args)), measured: today };
      rows = [...rows.filter((r) => key(r) !== key(row)), row];
      record(presetMethodsSuite, rows);
    }
    return rows;
  },
};
