/**
 * Suite "detector-targets": issue 14's targets on the PP-OCRv4 text detector as a user meets them (the best 8-bit
 * method ≥ 0.975 per channel and ≥ 0.96 per tensor; ONNX Runtime's quantize_static 0.959 on the issue's own split),
 * through the product's own path (cases/detectorTargets.ts: ladder rung configurations, measured by ladderMeasure as
 * `qstudio ladder` wires it). Calibrated and tuned on textScenes' 16 calibration scenes, judged on its 21 held-out
 * scenes by onnxruntime-node. One case per weight granularity (rows in it share their ranges), and AdaRound's
 * stability: 200 against 1000 iterations, and 200 on a second calibration split (the calibration scenes drawn with
 * another seed: same backgrounds and lines, new positions and scales).
 *
 * QS_TARGETS_JOBS=<n> runs n cases at a time (default 2). QS_TARGETS_LINES=<file,...> records the row lines
 * (stderr) of case runs made apart, instead of running the cases (for runs too long to hold the suite open).
 */
import fs from 'node:fs';
import { runCase, type Row, type Suite } from '../harness.ts';

/** The cases: [arguments] of cases/detectorTargets.ts, in the order they are started. */
const CASES: string[][] = [
  ['weights=perChannel', 'rows=minmax,best,bc,adaround200,adaquant200,adaround1000'],
  ['weights=perTensor', 'rows=minmax,best,bc,adaround200,adaquant200,adaround1000,ort'],
  ['weights=perChannel', 'rows=best,adaround200', 'seed=15'],
];

/** The target for a granularity. */
const TARGET: Record<string, number> = { 'per channel': 0.975, 'per tensor': 0.96 };

/** A measured row as the table shows it: the target it is held to, and whether it meets it. */
export function targetRow(r: Row, measured: string): Row {
  const target = TARGET[String(r.weights)];
  const cosine = Number(r.cosine);
  return { ...r, target, met: Number.isFinite(cosine) ? (cosine >= target ? 'met' : 'not met') : '', measured };
}

export const detectorTargetsSuite: Suite = {
  name: 'detector-targets',
  title:
    "Issue 14's targets on the PP-OCRv4 text detector (A8W8; best 8-bit ≥ 0.975 per channel, ≥ 0.96 per tensor): calibrated and tuned on 16 text scenes, judged on 21 held-out scenes by onnxruntime-node",
  columns: [
    ['weights', 'weights'],
    ['label', 'configuration'],
    ['calibrationSeed', 'calibration scenes'],
    ['cosine', 'held-out cosine'],
    ['target', 'target'],
    ['met', 'target met'],
    ['calibrationSeconds', 'calibration s'],
    ['calibrationCpuSeconds', 'calibration CPU s'],
    ['stepsSeconds', 'quantize + steps + judge s'],
    ['stepsCpuSeconds', 'quantize + steps + judge CPU s'],
    ['measured', 'measured'],
  ],
  async run() {
    const today = new Date().toISOString().slice(0, 10);
    const lines = process.env.QS_TARGETS_LINES?.split(',').filter(Boolean);
    if (lines) {
      const rows = lines.flatMap((f) =>
        fs
          .readFileSync(f, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('{"row"'))
          .map((l) => JSON.parse(l) as Row),
      );
      // In the cases' order: per channel, its second split, per tensor; within each, the rows as the case lists them.
      const group = (r: Row) => (r.weights === 'per channel' ? (r.calibrationSeed === 'default' ? 0 : 1) : 2);
      const order = ['ort', 'minmax', 'best', 'bc', 'adaround200', 'adaround1000', 'adaquant200'];
      rows.sort((a, b) => group(a) - group(b) || order.indexOf(String(a.row)) - order.indexOf(String(b.row)));
      return rows.map((r) => targetRow(r, today));
    }
    const results = new Map<number, Row[]>();
    const queue = CASES.map((args, i) => [i, args] as const);
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const [i, args] = next;
        try {
          const out = (await runCase('cases/detectorTargets.ts', args)) as unknown as { rows: Row[] };
          results.set(
            i,
            out.rows.map((r) => targetRow(r, today)),
          );
        } catch (e) {
          results.set(i, [
            { label: args.join(' '), met: `failed: ${e instanceof Error ? e.message : String(e)}`, measured: today },
          ]);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Number(process.env.QS_TARGETS_JOBS ?? 2)) }, worker));
    return CASES.flatMap((_, i) => results.get(i) ?? []);
  },
};
