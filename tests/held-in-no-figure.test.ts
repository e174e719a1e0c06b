/**
 * A8W8's held-in choice on a model whose every output is one number a sample (a wake-word score: openWakeWord's
 * classifiers shipped in npm packages, [1, 28, 96] embeddings → Gemm → Sigmoid → [1, 1]): such an output has no
 * cosine, so there is no figure to compare the methods by. The command says so and keeps the preset's own method
 * (before, it printed "held-in cosine NaN" for each method and "chose" by comparing NaN), writing the very bytes
 * `--calibration-method MinMax` writes.
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

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-held-in-no-figure-'));

describe('the held-in choice where every output is one number a sample', () => {
  it("says there is no figure to choose by, keeps A8W8's own method and writes MinMax's bytes", () => {
    const model = path.join(tmp, 'score.onnx');
    fs.writeFileSync(model, encode(scoreModel()));
    const calib = path.join(tmp, 'calib');
    fs.mkdirSync(calib, { recursive: true });
    for (let k = 0; k < 6; k++)
      fs.writeFileSync(path.join(calib, `${k}.npy`), npyBytes(seededFloats(48, 10 + k, -1, 1), [1, 6, 8], '<f4'));
    const chosen = path.join(tmp, 'held-in.onnx');
    const r = qstudio('quantize', model, '--calib', calib, '--config', 'A8W8', '-o', chosen);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/NaN/);
    expect(r.stderr).toContain(
      'calibration method: MinMax, not chosen by measurement: every output of the model is one number a sample',
    );
    const summary = JSON.parse(fs.readFileSync(chosen.replace(/\.onnx$/, '.json'), 'utf8'));
    expect(summary.calibrationMethod.method).toBe('MinMax');
    expect(summary.calibrationMethod.heldIn.noFigure).toBe(true);
    const minMax = path.join(tmp, 'minmax.onnx');
    const fixed = qstudio(
      'quantize',
      model,
      '--calib',
      calib,
      '--config',
      'A8W8',
      '--calibration-method',
      'MinMax',
      '-o',
      minMax,
    );
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(Buffer.compare(fs.readFileSync(chosen), fs.readFileSync(minMax))).toBe(0);
  });
});
