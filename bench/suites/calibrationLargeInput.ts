/**
 * Suite "calibration-large-input" (issue 33.5: calibration of large inputs at close to the cost of the model runs).
 * PP-OCRv4's text detector at 1024 × 1024 on three COCO photos (cases/calibrationLargeInput.ts), each run a fresh
 * process: the three plain float runs (the floor), MinMax calibration with its statistics computed inside the model
 * (the default) and with every tensor exposed (the path before), and the histogram methods (Percentile, Entropy,
 * MinMSE: every tensor exposed, histograms in JavaScript). The modes alternate over repeats (each repeat starts
 * one mode later); a figure is the median over repeats, beside the per-repeat ratio to the float runs and the load.
 * The two calibrations' ranges are compared tensor by tensor (largest absolute difference over all repeats), and their
 * states (count, batches, sums of batch extremes...) for exact equality; in-graph says how many tensors it reduces,
 * derives from others' extremes and takes from Constant nodes.
 * QS_BENCH_REPEATS (default 3).
 */
import fs from 'node:fs';
import path from 'node:path';
import { runCase, type Row, type Suite } from '../harness.ts';
import { median, rotated } from './calibrationSpeed.ts';

const MODES = ['float', 'in-graph', 'exposed', 'Percentile', 'Entropy', 'MinMSE'] as const;

const fixed = (x: number, digits = 2) => +x.toFixed(digits);
const span = (xs: number[], digits = 2) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

type Ranges = Record<string, { min: number; max: number }>;
interface Written {
  ranges: Ranges;
  states: Record<string, unknown>;
}

/** The tensors whose states differ (or only one side has). */
export function stateDifferences(a: Written['states'], b: Written['states']): number {
  let n = 0;
  for (const t of new Set([...Object.keys(a), ...Object.keys(b)]))
    if (JSON.stringify(a[t]) !== JSON.stringify(b[t])) n++;
  return n;
}

/** Largest |difference| of the bounds between two range tables, and the tensors only one of them has. */
export function rangeDifference(a: Ranges, b: Ranges): { maxAbs: number; unmatched: number } {
  let maxAbs = 0;
  let unmatched = 0;
  for (const t of new Set([...Object.keys(a), ...Object.keys(b)])) {
    if (!a[t] || !b[t]) {
      unmatched++;
      continue;
    }
    maxAbs = Math.max(maxAbs, Math.abs(a[t].min - b[t].min), Math.abs(a[t].max - b[t].max));
  }
  return { maxAbs, unmatched };
}

export const calibrationLargeInputSuite: Suite = {
  name: 'calibration-large-input',
  title:
    'Calibration of a large input: PP-OCRv4 det at 1024 × 1024, 3 COCO photos, MinMax and the histogram methods (onnxruntime-node, basic; fresh process a run; medians over repeats)',
  columns: [
    ['mode', 'run'],
    ['tensors', 'tensors'],
    ['outputMB', 'outputs a run, MB'],
    ['repeats', 'repeats'],
    ['seconds', 'wall s (median)'],
    ['wallVsFloat', 'wall vs float runs (median of per-repeat ratios)'],
    ['wallSpan', 'per-repeat wall s'],
    ['cpuSeconds', 'CPU s (median)'],
    ['cpuVsFloat', 'CPU vs float runs'],
    ['split', 'reduced / derived / constant tensors'],
    ['rangesVsExposed', 'ranges: largest difference from exposed'],
    ['statesVsExposed', 'states differing from exposed'],
    ['load', 'load average (1 min)'],
  ],
  async run() {
    const repeats = Number(process.env.QS_BENCH_REPEATS ?? 3);
    const tmp = path.join(import.meta.dirname, '../tmp/large-input');
    fs.mkdirSync(tmp, { recursive: true });
    const runs: Row[] = [];
    const differences: number[] = [];
    let unmatched = 0;
    let statesDiffering = 0;
    for (let repeat = 0; repeat < repeats; repeat++) {
      const files: Partial<Record<string, string>> = {};
      for (const mode of rotated(MODES, repeat)) {
        const file = path.join(tmp, `${mode}-${repeat}.json`);
        if (mode === 'in-graph' || mode === 'exposed') files[mode] = file;
        const run = await runCase('cases/calibrationLargeInput.ts', files[mode] ? [mode, file] : [mode]);
        console.log(JSON.stringify({ repeat, ...run }));
        runs.push({ repeat, ...run });
      }
      const read = (f: string) => JSON.parse(fs.readFileSync(f, 'utf8')) as Written;
      const [inGraph, exposed] = [read(files['in-graph']!), read(files.exposed!)];
      const d = rangeDifference(inGraph.ranges, exposed.ranges);
      differences.push(d.maxAbs);
      unmatched += d.unmatched;
      statesDiffering = Math.max(statesDiffering, stateDifferences(inGraph.states, exposed.states));
    }
    return MODES.map((mode) => {
      const own = runs.filter((r) => r.mode === mode);
      const ratio = (field: string) =>
        own.map(
          (r) => Number(r[field]) / Number(runs.find((f) => f.mode === 'float' && f.repeat === r.repeat)![field]),
        );
      const loads = own.flatMap((r) => [Number(r.loadBefore), Number(r.loadAfter)]);
      return {
        mode:
          mode === 'float'
            ? 'float runs (3 photos)'
            : mode === 'in-graph' || mode === 'exposed'
              ? `MinMax calibration, ${mode}`
              : `${mode} calibration, exposed`,
        tensors: mode === 'float' ? '' : own[0].tensors,
        outputMB: mode === 'float' ? '' : own[0].outputMB,
        repeats: own.length,
        seconds: fixed(median(own.map((r) => Number(r.seconds)))),
        wallVsFloat: fixed(median(ratio('seconds'))),
        wallSpan: span(
          own.map((r) => Number(r.seconds)),
          1,
        ),
        cpuSeconds: fixed(median(own.map((r) => Number(r.cpuSeconds)))),
        cpuVsFloat: fixed(median(ratio('cpuSeconds'))),
        split: mode === 'in-graph' ? `${own[0].reduced} / ${own[0].derived} / ${own[0].constants}` : '',
        rangesVsExposed:
          mode === 'in-graph'
            ? `${Math.max(...differences)}${unmatched ? ` (${unmatched} tensors unmatched)` : ''}`
            : '',
        statesVsExposed: mode === 'in-graph' ? statesDiffering : '',
        load: span(loads, 1),
      };
    });
  },
};
