/**
 * `qstudio quantize --mixed-precision` on a model whose every output is one number a sample (a wake-word score): its
 * default target, cosine 0.99, is refused before any calibration with what to aim at instead, as the ladder and
 * suggest refuse it (before, the search printed "base: cosine 1.00000 ... target reached": the cosine of two numbers of
 * one sign is always 1); a decision target is taken.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { encode } from '../src/core/onnx/index.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { npyBytes } from './helpers/npyFiles.ts';
import { qstudio } from './helpers/qstudio.ts';
import { scoreModel } from './helpers/smallModels.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-mixed-one-number-'));

describe('mixed precision on a one-score model', () => {
  it('refuses a cosine target by name, before calibrating, and takes a decision target', () => {
    const model = path.join(tmp, 'score.onnx');
    fs.writeFileSync(model, encode(scoreModel()));
    const calib = path.join(tmp, 'calib');
    fs.mkdirSync(calib, { recursive: true });
    for (let k = 0; k < 6; k++)
      fs.writeFileSync(path.join(calib, `${k}.npy`), npyBytes(seededFloats(48, 20 + k, -1, 1), [1, 6, 8], '<f4'));
    const args = ['quantize', model, '--calib', calib, '--config', 'A8W8', '--mixed-precision'];
    const refused = qstudio(...args, '-o', path.join(tmp, 'cosine.onnx'));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      "a cosine target needs an output of more than one number a sample; this model's 'score' [1, 1] is one number a sample",
    );
    expect(refused.stderr).toContain('aim at decision:<share>');
    expect(refused.stderr).not.toMatch(/calibrat/);
    expect(fs.existsSync(path.join(tmp, 'cosine.onnx'))).toBe(false);
    const decision = qstudio(...args, '--target', 'decision:0.95', '-o', path.join(tmp, 'decision.onnx'));
    expect(decision.code, decision.stderr).toBe(0);
    expect(decision.stderr).toMatch(/mixed precision: decision [\d.]+ → [\d.]+/);
    expect(decision.stderr).toContain('target decision 0.95 on 4 tensor sample(s)');
  });
});
