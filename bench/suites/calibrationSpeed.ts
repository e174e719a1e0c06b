/**
 * Suite "calibration-speed": what each calibration method costs against MinMax (issue 14: the histogram methods at
 * MinMax's speed, Entropy and Percentile ≤ 1.3×). On a machine shared with other work a single run's time is noise,
 * so every fixture runs each method several times, the methods alternating (each repeat starts one method later,
 * so no method always runs first or after the same neighbour), each run a fresh process (cases/calibrationSpeed.ts).
 * A method's figure is the median over repeats of its CPU time divided by the MinMax run of the same repeat (the
 * process's CPU time, all threads: it follows the work where the wall time follows the load); the wall-time ratio
 * and the machine's load average during the fixture's runs are reported beside it.
 *
 * Then the page (cases/calibrationBrowserSpeed.ts): UltraFace in Chromium, the page's Web Workers calibrating with
 * MinMax and Entropy in turn (the same core collectors and histogram kernel, on onnxruntime-web), one browser session
 * after a warm-up run of each, charged the CPU time of every Chromium process.
 *
 * QS_BENCH_REPEATS (default 3), QS_BENCH_FIXTURES=a,b, QS_BENCH_METHODS=c,d (MinMax is always run: it is the
 * baseline), QS_BENCH_SCENES (text scenes for the PP-OCRv4 detector, default 4) and QS_BENCH_BROWSER=0 (no page
 * rows) make leaner runs; QS_BENCH_PORT and QS_DIST serve the page from another port and build folder.
 */
import { runCase, type Row, type Suite } from '../harness.ts';
import { PREVIEW_PORTS, withPreviewServer } from '../previewServer.ts';

export const SPEED_FIXTURES = [
  'ultraface-rfb-320.onnx',
  'yunet-n-dynamic.onnx',
  'yolox-nano.onnx',
  'mnist.onnx',
  'ppocr-det',
];
/** MinMax first; the bound applies to Percentile and Entropy, the others are measured for information. */
export const SPEED_METHODS = [
  'MinMax',
  'Percentile',
  'Entropy',
  'MinMSE',
  'LayerwisePercentile',
  'ConsumerMSE',
  'Sequential',
];
/** The methods issue 14 bounds at 1.3× MinMax's time. */
const BOUNDED = new Set(['Percentile', 'Entropy']);
export const SPEED_BOUND = 1.3;

export function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** `order` rotated left by `by`: repeat r starts with the r-th method. */
export function rotated<T>(order: readonly T[], by: number): T[] {
  const k = order.length === 0 ? 0 : by % order.length;
  return [...order.slice(k), ...order.slice(0, k)];
}

const fixed = (x: number, digits = 2) => +x.toFixed(digits);
const span = (xs: number[], digits = 2) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** Per fixture and method: medians over repeats and the median of the per-repeat ratios to MinMax. */
export function summarize(runs: Row[]): Row[] {
  const rows: Row[] = [];
  const fixtures = [...new Set(runs.map((r) => String(r.model)))];
  for (const model of fixtures) {
    const mine = runs.filter((r) => r.model === model);
    const loads = mine.flatMap((r) => [Number(r.loadBefore), Number(r.loadAfter)]);
    const base = mine.filter((r) => r.method === 'MinMax');
    for (const method of [...new Set(mine.map((r) => String(r.method)))]) {
      const own = mine.filter((r) => r.method === method);
      const cpuRatios: number[] = [];
      const wallRatios: number[] = [];
      for (const r of own) {
        const b = base.find((x) => x.repeat === r.repeat);
        if (!b) continue;
        cpuRatios.push(Number(r.cpuSeconds) / Number(b.cpuSeconds));
        wallRatios.push(Number(r.seconds) / Number(b.seconds));
      }
      const cpuVsMinMax = cpuRatios.length ? fixed(median(cpuRatios)) : null;
      rows.push({
        model,
        method,
        images: own[0].images,
        tensors: own[0].tensors,
        repeats: own.length,
        cpuSeconds: fixed(median(own.map((r) => Number(r.cpuSeconds)))),
        seconds: fixed(median(own.map((r) => Number(r.seconds)))),
        rangesCpuSeconds: fixed(median(own.map((r) => Number(r.rangesCpuSeconds))), 3),
        cpuVsMinMax,
        cpuVsMinMaxSpan: cpuRatios.length ? span(cpuRatios) : '',
        wallVsMinMax: wallRatios.length ? fixed(median(wallRatios)) : null,
        withinBound: BOUNDED.has(method) && cpuVsMinMax !== null ? (cpuVsMinMax <= SPEED_BOUND ? 'yes' : 'no') : '',
        cpuRuns: own.map((r) => Number(r.cpuSeconds).toFixed(2)).join(' '),
        load: span(loads, 1),
      });
    }
  }
  return rows;
}

export const calibrationSpeedSuite: Suite = {
  name: 'calibration-speed',
  title:
    'Calibration time per method against MinMax (onnxruntime-node, one fresh process a run, methods alternating; medians over repeats)',
  columns: [
    ['model', 'model'],
    ['method', 'method'],
    ['images', 'images'],
    ['tensors', 'tensors'],
    ['repeats', 'repeats'],
    ['cpuSeconds', 'CPU s (median)'],
    ['cpuVsMinMax', 'CPU vs MinMax (median of per-repeat ratios)'],
    ['cpuVsMinMaxSpan', 'per-repeat ratios'],
    ['withinBound', `≤ ${SPEED_BOUND}×`],
    ['seconds', 'wall s (median)'],
    ['wallVsMinMax', 'wall vs MinMax'],
    ['rangesCpuSeconds', 'ranges from statistics, CPU s'],
    ['load', 'load average (1 min)'],
  ],
  async run() {
    const repeats = Number(process.env.QS_BENCH_REPEATS ?? 3);
    const fixtures = process.env.QS_BENCH_FIXTURES?.split(',').filter(Boolean) ?? SPEED_FIXTURES;
    const asked = process.env.QS_BENCH_METHODS?.split(',').filter(Boolean);
    const methods = asked ? ['MinMax', ...asked.filter((m) => m !== 'MinMax')] : SPEED_METHODS;
    const scenes = process.env.QS_BENCH_SCENES ?? '4';
    const runs: Row[] = [];
    for (const model of fixtures) {
      for (let repeat = 0; repeat < repeats; repeat++) {
        for (const method of rotated(methods, repeat)) {
          const run = await runCase(
            'cases/calibrationSpeed.ts',
            model === 'ppocr-det' ? [model, method, scenes] : [model, method],
          );
          console.log(JSON.stringify({ repeat, ...run }));
          runs.push({ repeat, ...run });
        }
      }
    }
    const rows = summarize(runs);
    if (process.env.QS_BENCH_BROWSER !== '0') {
      const port = Number(process.env.QS_BENCH_PORT ?? PREVIEW_PORTS['calibration-speed']);
      const outDir = process.env.QS_DIST ?? 'dist-bench-calibration-speed';
      const page = await withPreviewServer({ port, outDir }, (url) =>
        runCase('cases/calibrationBrowserSpeed.ts', [url, String(repeats), 'MinMax', 'Entropy']),
      );
      const pageRuns = (page.runs as unknown as Row[]).map((r) => ({
        ...r,
        model: 'ultraface-rfb-320.onnx (page, Chromium)',
        images: page.images,
        tensors: '',
        rangesCpuSeconds: NaN,
        loadBefore: page.loadMin,
        loadAfter: page.loadMax,
      }));
      rows.push(...summarize(pageRuns).map((r) => ({ ...r, tensors: '', rangesCpuSeconds: '' })));
    }
    return rows;
  },
};
