/**
 * Suite "ladder": `qstudio ladder` on YOLOX-nano with a target of output cosine 0.99, as a user runs it
 * (calibrate and tune on COCO 1–16, judge on COCO 17–24); one row per rung tried, in order, one per rung the
 * ladder skipped (not measured, with its reason), and a last row for the whole command: its wall time, its CPU
 * time (user + system, from /usr/bin/time: the machine is shared, so CPU seconds are the steadier figure), and the
 * written model judged again by `qstudio evaluate` (onnxruntime-node on the file, COCO 17–24). The command's own
 * JSON report is kept in bench/tmp/ladder-yolox.json (and the HTML beside it). QS_LADDER_ORDER picks the order
 * (eight-bit-first, the default, or fastest); QS_LADDER_JUDGE the graph optimization level every rung is judged at
 * (`--judge-optimization`: basic, the default, or all, onnxruntime's CPU default with its int8 kernels). The written
 * model is judged again at both levels (`qstudio evaluate --cpu-kernels`). The last rows of every other order and
 * judge are kept beside the new ones.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { previousRows, type Row, type Suite } from '../harness.ts';
import { parseReportNumber } from '../../src/core/report/json.ts';
import { heldOutFolders, preprocessFile } from '../cases/heldOut.ts';

const root = path.resolve(import.meta.dirname, '../..');
const MODEL = 'yolox-nano.onnx';
/** Fine-tuning iterations per layer (FastFinetune NumIterations) for the bench; QS_LADDER_ITERATIONS overrides. */
const ITERATIONS = process.env.QS_LADDER_ITERATIONS ?? '200';
/** The ladder's order (qstudio ladder --order): eight-bit-first (the default) or fastest. */
const ORDER = process.env.QS_LADDER_ORDER ?? 'eight-bit-first';
/** The level every rung is judged at (qstudio ladder --judge-optimization): basic (the default) or all. */
const JUDGE = process.env.QS_LADDER_JUDGE ?? 'basic';

export const ladderSuite: Suite = {
  name: 'ladder',
  title: `The automated ladder on ${MODEL}, target output cosine ≥ 0.99 (tuned on COCO 1–16, judged on COCO 17–24)`,
  columns: [
    ['order', 'order'],
    ['judge', 'judged at'],
    ['index', '#'],
    ['label', 'rung'],
    ['step', 'reference step'],
    ['cosine', 'mean cosine'],
    ['psnr', 'mean PSNR (dB)'],
    ['met', 'meets 0.99'],
    ['cosineAll', "written model at 'all'"],
    ['chosen', 'chosen'],
    ['seconds', 'seconds'],
    ['cpuSeconds', 'CPU s'],
    ['error', 'error / note'],
  ],
  async run() {
    const { calib, judge } = heldOutFolders();
    const json = path.join(root, 'bench/tmp/ladder-yolox.json');
    const written = path.join(root, 'bench/tmp/ladder-yolox.onnx');
    const times = path.join(root, 'bench/tmp/ladder-yolox.time');
    const floatModel = path.resolve(root, '../shared/fixtures/models', MODEL);
    const args = [
      '-f',
      '%e %U %S',
      '-o',
      times,
      process.execPath,
      path.join(root, 'bin/qstudio.js'),
      'ladder',
      floatModel,
      '--calib',
      calib,
      '--data',
      judge,
      '--preprocess',
      preprocessFile(MODEL),
      '--target',
      'cosine:0.99',
      '--iterations',
      ITERATIONS,
      '--order',
      ORDER,
      '--judge-optimization',
      JUDGE,
      '-o',
      written,
      '--json',
      json,
      '--report',
      json.replace(/\.json$/, '.html'),
    ];
    const load = os.loadavg()[0];
    try {
      execFileSync('/usr/bin/time', args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    } catch (e) {
      if ((e as { status?: number }).status !== 3) throw e; // 3: target not reached, still a result
    }
    const [wall, user, system] = fs.readFileSync(times, 'utf8').trim().split(/\s+/).slice(-3).map(Number);
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    /** A rung as `qstudio ladder --json` writes it (the fields read here). */
    type RungJson = {
      index: number;
      label: string;
      step: string;
      metrics: { cosine: unknown; psnr: unknown };
      met: boolean;
      seconds: number;
      error?: string;
    };
    const round = (v: unknown, digits: number) => {
      const n = parseReportNumber(v);
      return Number.isFinite(n) ? +n.toFixed(digits) : null;
    };
    // The written file judged on its own, at both levels: onnxruntime-node loads it from disk and runs it beside the float model.
    const judged = JSON.parse(
      execFileSync(
        process.execPath,
        [
          path.join(root, 'bin/qstudio.js'),
          'evaluate',
          floatModel,
          written,
          '--data',
          judge,
          '--preprocess',
          preprocessFile(MODEL),
          '--json',
          '--cpu-kernels',
        ],
        { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 },
      ),
    );
    type Judged = { metrics: { cosine?: { mean: unknown } } };
    const meanCosine = (outputs: Judged[]) =>
      outputs.map((o) => parseReportNumber(o.metrics.cosine?.mean)).reduce((a, b) => a + b, 0) / outputs.length;
    const cosine = meanCosine(judged.outputs);
    const cosineAll = meanCosine(judged.cpuKernels.outputs);
    const chosen = report.ladder.rungs[report.ladder.chosen];
    const base = { model: MODEL, iterations: Number(ITERATIONS), order: ORDER, judge: JUDGE };
    // The other orders' and judges' rows are kept, side by side (rows from before the options existed were climbed
    // 'fastest' and judged at 'basic').
    const other = previousRows('ladder')
      .map((r) => ({ ...r, order: r.order ?? 'fastest', judge: r.judge ?? 'basic' }))
      .filter((r) => r.order !== ORDER || r.judge !== JUDGE);
    return [
      ...other,
      ...report.ladder.rungs.map((g: RungJson, i: number): Row => ({
        ...base,
        index: g.index,
        label: g.label,
        step: g.step,
        cosine: round(g.metrics.cosine, 5),
        psnr: round(g.metrics.psnr, 2),
        met: g.met,
        cosineAll: null,
        chosen: i === report.ladder.chosen,
        seconds: +g.seconds.toFixed(1),
        cpuSeconds: null,
        error: g.error ?? null,
      })),
      ...(report.ladder.skipped ?? []).map((k: { label: string; reason: string }): Row => ({
        ...base,
        index: null,
        label: k.label,
        step: null,
        cosine: null,
        psnr: null,
        met: null,
        cosineAll: null,
        chosen: false,
        seconds: null,
        cpuSeconds: null,
        error: `not measured: ${k.reason}`,
      })),
      {
        ...base,
        index: null,
        label: `whole ladder (${report.ladder.stopped === 'target' ? 'target reached' : 'target not reached'}), the written model judged by qstudio evaluate --cpu-kernels ('basic', then 'all')`,
        step: null,
        cosine: +cosine.toFixed(5),
        psnr: null,
        met: (JUDGE === 'all' ? cosineAll : cosine) >= 0.99,
        cosineAll: +cosineAll.toFixed(5),
        chosen: false,
        seconds: +wall.toFixed(1),
        cpuSeconds: +(user + system).toFixed(1),
        error: `chosen: rung ${chosen?.index} ${chosen?.label}; load average ${load.toFixed(1)} at start`,
      },
    ];
  },
};
