/**
 * The ladder on a model whose compute is all inside an If (as Silero VAD's opset-18 export), with --enable-subgraph,
 * run for real through the command line: its mixed-precision rung widens tensors inside the branch and its exclusion
 * rung keeps branch nodes float (by scoped id), each measurably closer to the float model than the 8-bit rungs; its
 * bias-correction and fine-tuning rungs treat the branch's layers instead of being skipped as having none; the
 * written model loads at onnxruntime's 'all' and 'basic' (it is at opset 21 for its 16-bit Q/DQ, above what the
 * installed onnx.checker reads; tests/mixed-precision-subgraphs.test.ts checks the same writes at opset 13).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encode } from '../src/core/onnx/index.ts';
import { ifComputeModel } from '../src/core/quantize/testModels.ts';
import { createSession, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { npyBytes } from './helpers/npyFiles.ts';
import { qstudio } from './helpers/qstudio.ts';

interface LadderRung {
  label: string;
  score: number;
  excluded: number;
}

describe('ladder rungs inside an If body', () => {
  it('mixed precision and exclusions reach the branch, each better than the 8-bit rungs; the file loads at all and basic', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-ladder-body-'));
    const source = path.join(dir, 'if_compute.onnx');
    fs.writeFileSync(source, encode(ifComputeModel()));
    const data = path.join(dir, 'tensors');
    fs.mkdirSync(data);
    const samples = Array.from({ length: 8 }, (_, k) => seededFloats(8, 90 + k, -1.5, 1.5));
    samples.forEach((s, k) => fs.writeFileSync(path.join(data, `${k}.npy`), npyBytes(s, [1, 8], '<f4')));
    const out = path.join(dir, 'ladder.onnx');
    const json = path.join(dir, 'ladder.json');
    const run = qstudio(
      'ladder',
      source,
      '--calib',
      data,
      '--enable-subgraph',
      '--formats',
      'A8W8',
      '--target',
      'cosine:0.9999999',
      '-o',
      out,
      '--json',
      json,
    );
    // Exit 3: the target is out of reach; the best rung is written.
    expect(run.code, run.stderr).toBe(3);
    const summary = JSON.parse(fs.readFileSync(json, 'utf8')) as {
      ladder: { rungs: LadderRung[]; skipped: { label: string; reason: string }[] };
      exclusions: { ids: string[] }[];
    };
    const rungs = summary.ladder.rungs;
    // Fine-tuning and bias correction enter the If branch with EnableSubgraph: their rungs are measured, not skipped as
    // the starting rung again.
    expect(rungs.map((r) => r.label)).toEqual(
      expect.arrayContaining([
        'Mixed precision (A8W8 per-channel) + bias correction',
        'Mixed precision (A8W8 per-channel) + AdaRound',
      ]),
    );
    for (const s of summary.ladder.skipped) expect(s.reason).not.toMatch(/starting rung again/);
    const eightBit = Math.max(...rungs.filter((r) => /^A8W8/.test(r.label)).map((r) => r.score));
    const mixed = rungs.find((r) => r.label.startsWith('Mixed precision'))!;
    const excluded = rungs.find((r) => r.label === 'Exclude sensitive nodes')!;
    expect(run.stderr).toMatch(/Mixed precision \(A8W8 per-channel\): [1-9]\d* activation pairs/);
    expect(mixed.score).toBeGreaterThan(eightBit);
    expect(excluded.excluded).toBeGreaterThan(0);
    expect(excluded.score).toBeGreaterThan(mixed.score);
    const ids = summary.exclusions.flatMap((e) => e.ids);
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) expect(id).toMatch(/^if\/then_branch\//);

    for (const level of ['all', 'basic'] as const) {
      const session = await createSession(fs.readFileSync(out), 1, level);
      try {
        const y = (await session.run({ x: float32Tensor(samples[0], [1, 8]) })).y.data as Float32Array;
        expect(y).toHaveLength(8);
        expect([...y].every(Number.isFinite)).toBe(true);
      } finally {
        await session.release();
      }
    }
  });
});
