/**
 * `qstudio suggest --target decision:<share>` on a model whose every output is one number a sample (a wake-word
 * score): its lines give the decision figure alone, where they gave "cosine NaN" beside it (such an output has none).
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

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-suggest-one-number-'));

describe('suggest on a one-score model', () => {
  it('prints the decision figure without a NaN cosine', () => {
    const model = path.join(tmp, 'score.onnx');
    fs.writeFileSync(model, encode(scoreModel()));
    const calib = path.join(tmp, 'calib');
    fs.mkdirSync(calib, { recursive: true });
    for (let k = 0; k < 6; k++)
      fs.writeFileSync(path.join(calib, `${k}.npy`), npyBytes(seededFloats(48, 40 + k, -1, 1), [1, 6, 8], '<f4'));
    const r = qstudio('suggest', model, '--calib', calib, '--config', 'XINT8', '--target', 'decision:0.9');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^step 0: starting configuration → decision [\d.]+ \(/m);
    expect(r.stdout).toMatch(/target decision 0\.9: best decision [\d.]+ \(start [\d.]+\), stopped:/);
    expect(r.stdout).not.toMatch(/NaN/);
  });
});
