/**
 * Suite "ladder": `qstudio ladder` on YOLOX-nano with a target of output cosine 0.99, as a user runs it
 * (calibrate and tune on COCO 1–16, judge on COCO 17–24); one row per rung tried, in order. The command's own
 * JSON report is kept in bench/tmp/ladder-yolox.json (and the HTML beside it).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Row, Suite } from '../harness.ts';
import { parseReportNumber } from '../../src/core/report/json.ts';
import { heldOutFolders, preprocessFile } from '../cases/heldOut.ts';

const root = path.resolve(import.meta.dirname, '../..');
const MODEL = 'yolox-nano.onnx';
/** Fine-tuning iterations per layer (FastFinetune NumIterations) for the bench; QS_LADDER_ITERATIONS overrides. */
const ITERATIONS = process.env.QS_LADDER_ITERATIONS ?? '200';

export const ladderSuite: Suite = {
  name: 'ladder',
  title: `The automated ladder on ${MODEL}, target output cosine ≥ 0.99 (tuned on COCO 1–16, judged on COCO 17–24)`,
  columns: [
    ['index', '#'],
    ['label', 'rung'],
    ['step', 'reference step'],
    ['cosine', 'mean cosine'],
    ['psnr', 'mean PSNR (dB)'],
    ['met', 'meets 0.99'],
    ['chosen', 'chosen'],
    ['seconds', 'seconds'],
    ['error', 'error'],
  ],
  async run() {
    const { calib, judge } = heldOutFolders();
    const json = path.join(root, 'bench/tmp/ladder-yolox.json');
    const args = [
      path.join(root, 'bin/qstudio.js'), 'ladder', path.resolve(root, '../shared/fixtures/models', MODEL),
      '--calib', calib, '--data', judge, '--preprocess', preprocessFile(MODEL), '--target', 'cosine:0.99',
      '--iterations', ITERATIONS, '--json', json, '--report', json.replace(/\.json$/, '.html'),
    ];
    try {
      execFileSync(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    } catch (e) {
      if ((e as { status?: number }).status !== 3) throw e; // 3: target not reached, still a result
    }
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    const round = (v: unknown, digits: number) => {
      const n = parseReportNumber(v);
      return Number.isFinite(n) ? +n.toFixed(digits) : null;
    };
    return report.ladder.rungs.map((g: Record<string, any>, i: number): Row => ({
      model: MODEL,
      iterations: Number(ITERATIONS),
      index: g.index,
      label: g.label,
      step: g.step,
      cosine: round(g.metrics.cosine, 5),
      psnr: round(g.metrics.psnr, 2),
      met: g.met,
      chosen: i === report.ladder.chosen,
      seconds: +g.seconds.toFixed(1),
      error: g.error,
    }));
  },
};
