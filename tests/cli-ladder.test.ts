/** `qstudio ladder` as a user runs it: every rung measured for real on MNIST and photos, printed, reported. */
import { cpuInt8Kernels } from '../src/cli/runtime/cpuInt8Kernels.ts';
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSession, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { IMAGES, MODELS } from './helpers/fixtures.ts';
import { parseReportNumber } from '../src/core/report/json.ts';
import { qstudio } from './helpers/qstudio.ts';
import { spawn } from 'node:child_process';

const BIN = path.resolve(import.meta.dirname, '../bin/qstudio.js');

/** Starts `qstudio ...args`, sends `signal` once stdout has printed the first measured rung, and waits for the exit. */
function interruptAfterFirstRung(
  signal: NodeJS.Signals,
  ...args: string[]
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let sent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!sent && /^rung 1 /m.test(stdout)) {
        sent = true;
        child.kill(signal);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-ladder-'));
const calib = path.join(tmp, 'calib');
const held = path.join(tmp, 'held');
fs.mkdirSync(calib);
fs.mkdirSync(held);
for (const f of ['grace_hopper.jpg', 'astronaut.png', 'camera.png'])
  fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(calib, f));
for (const f of ['chelsea.png', 'coffee.png']) fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(held, f));
const mnist = path.join(MODELS, 'mnist.onnx');
const common = ['--calib', calib, '--data', held, '--preprocess', 'unit', '--iterations', '5', '--formats', 'XINT8'];

describe('qstudio ladder', () => {
  it('climbs every rung, the formats without fine-tuning first, when the target is out of reach (every fine-tuning rung tried), and reports each', () => {
    const json = path.join(tmp, 'all.json');
    const html = path.join(tmp, 'all.html');
    const r = qstudio(
      'ladder',
      mnist,
      ...common,
      '--target',
      'cosine:1',
      '--finetune-reach',
      '1',
      '--max-exclusion-steps',
      '1',
      '--json',
      json,
      '--report',
      html,
    );
    expect(r.stderr).not.toMatch(/TypeError|at async/);
    expect(r.code).toBe(3);
    const rungs = [...r.stdout.matchAll(/^rung (\d+) (.+?): cosine/gm)].map((m) => m[2]);
    // MNIST has no pair CLE can equalize: its CLE rungs are skipped and listed, never measured.
    expect(rungs.slice(0, 2)).toEqual(['XINT8', 'XINT8 per-channel']);
    expect(r.stdout).toMatch(/^skipped XINT8 \+ CLE: CLE finds no pair/m);
    expect(rungs.slice(2, 6).sort()).toEqual([
      'XINT8 + AdaQuant',
      'XINT8 + AdaRound',
      'XINT8 per-channel + AdaQuant',
      'XINT8 per-channel + AdaRound',
    ]);
    // Then the mixed-precision rungs (the search, bias correction and fine-tuning on its precisions), then the exclusion search.
    expect(rungs.slice(-4)).toEqual([
      expect.stringMatching(/^Mixed precision \(XINT8 per-channel.*\)$/),
      expect.stringMatching(/^Mixed precision \(XINT8 per-channel.*\) \+ bias correction$/),
      expect.stringMatching(/^Mixed precision .* \+ Ada(Round|Quant)$/),
      'Exclude sensitive nodes',
    ]);
    expect(r.stdout).toMatch(
      new RegExp(`did not reach cosine ≥ 1 after ${rungs.length} rung\\(s\\); chosen: rung \\d`),
    );
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    expect(report.ladder.rungs.map((g: { label: string }) => g.label)).toEqual(rungs);
    expect(report.ladder.stopped).toBe('exhausted');
    expect(report.ladder.order).toBe('eight-bit-first');
    // The command line aims at onnxruntime's default options unless told otherwise, and says so.
    expect(report.graphOptimization).toBe('all');
    if (cpuInt8Kernels().saturates === false) expect(rungs.some((l) => l.includes('saturation-safe'))).toBe(false); // a VNNI CPU: nothing saturates
    const scores: number[] = report.ladder.rungs.map((g: { score: unknown }) => parseReportNumber(g.score));
    for (const [i, g] of report.ladder.rungs.entries()) {
      // A rung either measured a cosine below the target or failed with a named reason.
      if (Number.isNaN(scores[i])) expect(g.error).toMatch(/\w+: /);
      else expect(scores[i]).toBeLessThan(1);
    }
    expect(scores[report.ladder.chosen]).toBe(Math.max(...scores.filter((s) => !Number.isNaN(s))));
    // Not met: the report says which tensors block it and why, from the mixed-precision rung's own measurements.
    const shortfall = report.ladder.shortfall;
    const mixedRung = report.ladder.rungs.find((g: { label: string }) => /^Mixed precision \([^)]*\)$/.test(g.label));
    expect(shortfall.rung).toBe(mixedRung.index);
    expect(shortfall.growth.length).toBeGreaterThan(0);
    for (const g of shortfall.growth) expect(parseReportNumber(g.score)).toBeLessThan(1);
    expect(shortfall.lifted.activations.length + shortfall.lifted.weights.length).toBeGreaterThan(0);
    // Every activation at 16 bits, measured held in and held out: cosine 1 is out of reach even then.
    expect(shortfall.ceiling.act16).toBeGreaterThan(shortfall.growth.at(-1).act16);
    expect(parseReportNumber(shortfall.ceiling.heldOut.score)).toBeLessThan(1);
    expect(shortfall.why[0]).toMatch(/^Even every activation at 16 bits misses cosine ≥ 1/);
    // And every weight at 16 bits with the activations at 8, beside it: whether the weights or the activations carry the error.
    expect(shortfall.weightCeiling.w16).toBeGreaterThan(0);
    expect(parseReportNumber(shortfall.weightCeiling.heldOut.score)).toBeLessThan(1);
    expect(shortfall.why[1]).toMatch(/every activation at 8/);
    expect(r.stdout).toMatch(/^ {2}every weight at 16 bits \(\d+\), activations at 8: held in /m);
    // And how many bits it needs: everything at 16 bits with the activations, then the weights, on coarser grids.
    expect(
      shortfall.grids.map((g: { activationBits: number; weightBits: number }) => [g.activationBits, g.weightBits]),
    ).toEqual([
      [12, 16],
      [10, 16],
      [16, 10],
    ]);
    for (const g of shortfall.grids) expect(parseReportNumber(g.heldOut.score)).toBeLessThan(1);
    expect(r.stdout).toMatch(
      /^ {2}every activation on a 10-bit grid, every weight at 16 bits \(16-bit Q\/DQ stepped coarser\): held in /m,
    );
    expect(r.stdout).toMatch(/^Why the target was not met:\n {2}Even every activation at 16 bits misses/m);
    expect(r.stdout).toMatch(/^At 16 bits in the largest set measured, and still short:\n {2}\d+ activations: /m);
    const page = fs.readFileSync(html, 'utf8');
    expect(page).toContain('data-section="ladder-shortfall"');
    expect(page).toContain('Accuracy-recovery ladder');
    expect(page).toContain('Order: 8-bit first');
    for (const label of rungs) expect(page).toContain(label.replace(/&/g, '&amp;'));
  });

  it('stops at the first rung that meets the target and writes that model, which runs', async () => {
    const out = path.join(tmp, 'first.onnx');
    const config = path.join(tmp, 'first.json');
    const r = qstudio('ladder', mnist, ...common, '--target', '0.9', '-o', out, '--save-config', config);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^rung 1 XINT8: cosine 0\.9\d+ .*meets the target/m);
    expect(r.stdout).not.toMatch(/^rung 2/m);
    expect(JSON.parse(fs.readFileSync(config, 'utf8')).activationType).toBeDefined();
    const session = await createSession(fs.readFileSync(out));
    const input = session.inputNames[0];
    const result = await session.run({ [input]: float32Tensor(new Float32Array(28 * 28).fill(0.5), [1, 1, 28, 28]) });
    expect(Object.values(result)[0].dims).toEqual([1, 10]);
    await session.release();
  });

  it("aims at onnxruntime's CPU default when asked: judged at 'all', a format whose weights could saturate is tried with saturation-safe weights", () => {
    const json = path.join(tmp, 'cpu.json');
    const html = path.join(tmp, 'cpu.html');
    const r = qstudio(
      'ladder',
      mnist,
      ...common,
      '--formats',
      'A8W8',
      '--no-per-channel',
      '--no-mixed-precision',
      '--no-exclusions',
      '--finetune-reach',
      '0.01',
      '--target',
      'cosine:1',
      '--judge-optimization',
      'all',
      '--json',
      json,
      '--report',
      html,
    );
    expect(r.stderr).not.toMatch(/TypeError|at async/);
    expect(r.stderr).toMatch(/judging on 2 with onnxruntime at graph optimization 'all'/);
    const rungs = [...r.stdout.matchAll(/^rung (\d+) (.+?): cosine/gm)].map((m) => m[2]);
    // MNIST's A8W8 weights (per tensor) hold same-sign code pairs past 128: where this CPU's int8 kernels can saturate
    // (no VNNI, read from the CPU), the safe variant is measured right after; on a VNNI/AMX CPU it would gain nothing.
    if (cpuInt8Kernels().saturates === false) expect(rungs).not.toContain('A8W8 + saturation-safe weights');
    else expect(rungs.slice(0, 2)).toEqual(['A8W8', 'A8W8 + saturation-safe weights']);
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    expect(report.graphOptimization).toBe('all');
    expect(fs.readFileSync(html, 'utf8')).toContain('data-graph-optimization="all"');
    const bad = qstudio('ladder', mnist, ...common, '--judge-optimization', 'fast');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--judge-optimization "fast": give one of basic, all/);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    'stopped by %s after its first rung, writes the best rung so far (a model that runs) and its report, noting the target was not met',
    async (signal, status) => {
      const out = path.join(tmp, `${signal}.onnx`);
      const json = path.join(tmp, `${signal}.json`);
      const html = path.join(tmp, `${signal}.html`);
      // 100000 iterations a layer: the fine-tuning rungs would run for hours; the signal comes after rung 1.
      const r = await interruptAfterFirstRung(
        signal,
        'ladder',
        mnist,
        '--calib',
        calib,
        '--data',
        held,
        '--preprocess',
        'unit',
        '--formats',
        'XINT8',
        '--iterations',
        '100000',
        '--finetune-reach',
        '1',
        '--target',
        'cosine:1',
        '-o',
        out,
        '--json',
        json,
        '--report',
        html,
      );
      expect(r.stderr).not.toMatch(/TypeError|at async/);
      expect(r.code).toBe(status);
      expect(r.stderr).toContain(`${signal}: stopping; writing the best rung measured so far`);
      expect(r.stdout).toMatch(/did not reach cosine ≥ 1 after \d+ rung\(s\) \(interrupted\); best so far: rung \d+ /);
      const report = JSON.parse(fs.readFileSync(json, 'utf8'));
      expect(report.ladder.stopped).toBe('cancelled');
      expect(report.ladder.rungs.length).toBeGreaterThanOrEqual(1);
      expect(report.notes.join(' ')).toMatch(
        /^The target cosine ≥ 1 was not met: the climb ended early \(interrupted\)\. This model is the best rung measured, rung \d/,
      );
      expect(fs.readFileSync(html, 'utf8')).toContain(
        'cancelled or interrupted; the best rung measured so far is kept',
      );
      const session = await createSession(fs.readFileSync(out));
      const result = await session.run({
        [session.inputNames[0]]: float32Tensor(new Float32Array(28 * 28).fill(0.5), [1, 1, 28, 28]),
      });
      expect(Object.values(result)[0].dims).toEqual([1, 10]);
      await session.release();
    },
    120_000,
  );

  it('plans against --time-budget: prints each estimate, skips and lists the rungs that cannot fit, ends with the best kept', async () => {
    const out = path.join(tmp, 'budget.onnx');
    const json = path.join(tmp, 'budget.json');
    // A one-second budget against fine-tuning at 100000 iterations a layer. What fits depends on this machine's speed
    // (the budget arithmetic is tested on a fake clock in core/recovery/ladderBudget.test.ts); what must hold here:
    const r = qstudio(
      'ladder',
      mnist,
      ...common,
      '--iterations',
      '100000',
      '--finetune-reach',
      '1',
      '--target',
      'cosine:1',
      '--time-budget',
      '1s',
      '-o',
      out,
      '--json',
      json,
    );
    expect(r.stderr).not.toMatch(/TypeError|at async/);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/^rung 1 of at most \d+ XINT8 \(estimated \d+ s: the model's size and the images\) …$/m);
    // A budget below the first rung's estimate (the prior's fixed second alone is more): said, and that rung runs anyway.
    expect(r.stderr).toMatch(
      /note: the time budget \(1 s\) is shorter than this first rung's estimate: it runs to its end anyway, so that a model is written/,
    );
    // Each fine-tuning rung is skipped or fitted to what is left (fewer iterations); none completes at 100000 a layer.
    expect(r.stdout).toMatch(/over the time budget: estimated .* left$|AdaRound \(\d+ iterations\): cosine/m);
    expect(r.stdout).not.toMatch(/^rung \d+ .*Ada(Round|Quant): cosine \d/m);
    const report = JSON.parse(fs.readFileSync(json, 'utf8'));
    expect(report.ladder.budget.seconds).toBe(1);
    // Ended by the budget (a rung skipped or stopped at the deadline), or, on a fast machine, with every rung fitted in it.
    if (report.ladder.stopped === 'budget') expect(report.notes[0]).toMatch(/the time budget ran out/);
    else expect(report.ladder.stopped).toBe('exhausted');
    expect(fs.existsSync(out)).toBe(true);
    const bad = qstudio('ladder', mnist, ...common, '--time-budget', '15 minutes');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--time-budget: time budget "15 minutes": give a duration such as 15m/);
  }, 120_000);

  it('--min-rounding-error leaves layers under it at nearest rounding: above every layer, a fine-tuning rung reads as its plain start', () => {
    const json = path.join(tmp, 'min-rounding.json');
    const args = ['--target', 'cosine:1', '--finetune-reach', '1', '--no-mixed-precision', '--no-exclusions'];
    const r = qstudio(
      'ladder',
      mnist,
      ...common,
      ...args,
      '--no-per-channel',
      '--min-rounding-error',
      '0.99',
      '--json',
      json,
    );
    expect(r.stderr).not.toMatch(/TypeError|at async/);
    const rungs = JSON.parse(fs.readFileSync(json, 'utf8')).ladder.rungs as { label: string; score: unknown }[];
    const score = (label: string) => parseReportNumber(rungs.find((g) => g.label === label)!.score);
    expect(score('XINT8 + AdaRound')).toBe(score('XINT8'));
    expect(score('XINT8 + AdaQuant')).toBe(score('XINT8'));
    const bad = qstudio('ladder', mnist, ...common, '--min-rounding-error', '2');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--min-rounding-error "2": give a share in \[0, 1\)/);
  });

  it('--plateau-stop takes a share in [0, 1) and names anything else', () => {
    const bad = qstudio('ladder', mnist, ...common, '--plateau-stop', '1');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--plateau-stop "1": give a share in \[0, 1\)/);
  });

  it('--tune-sensitive climbs its fine-tuning rungs on the sensitive layers, writes a model that runs at default options and at basic, and names a bad share', async () => {
    const out = path.join(tmp, 'sensitive.onnx');
    const args = ['--target', 'cosine:1', '--finetune-reach', '1', '--no-mixed-precision', '--no-exclusions'];
    const r = qstudio('ladder', mnist, ...common, ...args, '--no-per-channel', '--tune-sensitive', '0.3', '-o', out);
    expect(r.stderr).not.toMatch(/TypeError|at async/);
    expect(r.stdout).toMatch(/^rung \d+ XINT8 \+ AdaRound: cosine \d/m);
    const x = float32Tensor(new Float32Array(28 * 28).fill(0.5), [1, 1, 28, 28]);
    for (const level of ['all', 'basic'] as const) {
      const session = await createSession(fs.readFileSync(out), 1, level);
      const y = Object.values(await session.run({ [session.inputNames[0]]: x }))[0];
      expect([...y.data].every(Number.isFinite)).toBe(true);
      await session.release();
    }
    const bad = qstudio('ladder', mnist, ...common, '--tune-sensitive', '0');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--tune-sensitive "0": give a share in \(0, 1\]/);
  });

  it('--adaquant-stride climbs its AdaQuant rungs strided (the configurations: tests in core ladder.test) and names a bad stride', () => {
    const args = ['--target', 'cosine:1', '--finetune-reach', '1', '--no-mixed-precision', '--no-exclusions'];
    const r = qstudio('ladder', mnist, ...common, ...args, '--no-per-channel', '--adaquant-stride', '5');
    expect(r.stderr).not.toMatch(/TypeError|at async/);
    expect(r.stdout).toMatch(/^rung \d+ XINT8 \+ AdaQuant \(stride 5\): cosine \d/m);
    expect(r.stdout).toMatch(/^rung \d+ XINT8 \+ AdaRound: cosine \d/m);
    const bad = qstudio('ladder', mnist, ...common, '--adaquant-stride', '0.5');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--adaquant-stride "0.5": give a whole number ≥ 1/);
  });

  it('names a bad target and a bad order', () => {
    const r = qstudio('ladder', mnist, ...common, '--target', 'ssim:0.9');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/LadderTargetError: target metric "ssim"/);
    const order = qstudio('ladder', mnist, ...common, '--order', 'sideways');
    expect(order.code).toBe(1); // a usage error
    expect(order.stderr).toMatch(/--order "sideways": give one of eight-bit-first, fastest/);
  });
});
