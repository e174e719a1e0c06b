/**
 * The ladder aiming at a cosine on a model with an output of one number a sample beside others (Silero VAD: its speech
 * probability beside its state; here a score beside a hidden layer): that output has no cosine, so the target leaves it
 * unjudged. After the first rung the ladder says so, with its decisions and how to aim at them; with a decision target
 * it says nothing.
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

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-ladder-unjudged-'));

describe('a cosine target beside a one-number output', () => {
  it('is said after the first rung, with the decisions and the decision target', () => {
    const model = path.join(tmp, 'score-and-hidden.onnx');
    fs.writeFileSync(model, encode(scoreModel(true)));
    const calib = path.join(tmp, 'calib');
    fs.mkdirSync(calib, { recursive: true });
    for (let k = 0; k < 6; k++)
      fs.writeFileSync(path.join(calib, `${k}.npy`), npyBytes(seededFloats(48, 30 + k, -1, 1), [1, 6, 8], '<f4'));
    const ladder = (...more: string[]) =>
      qstudio('ladder', model, '--calib', calib, '--formats', 'XINT8', '--time-budget', '20s', ...more);
    const cosine = ladder('-o', path.join(tmp, 'cosine.onnx'));
    expect(cosine.code, cosine.stderr).not.toBeNull();
    expect(cosine.stdout).toMatch(/^rung 1 XINT8: cosine [\d.]+ \(.*decision [\d.]+/m);
    expect(cosine.stderr).toMatch(
      /note: the cosine target judges only the outputs of more than one number a sample; .*"decision", [\d.]+ here\), and --target decision:<share> aims at them/,
    );
    const decision = ladder('--target', 'decision:0.9', '-o', path.join(tmp, 'decision.onnx'));
    expect(decision.code, decision.stderr).toBe(0);
    expect(decision.stderr).not.toContain('judges only the outputs');
  });
});
