/**
 * `qstudio suggest --target decision:<share>` on a model whose every output is one number a sample (a wake-word
 * score): its lines give the decision figure alone, where they gave "cosine NaN" beside it (such an output has none).
 * With a cosine target on a model with such an output beside others (Silero VAD: its speech probability beside its
 * state), the cosine leaves the score unjudged: every step shows its decisions and the first says so, as the ladder does.
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

  it('with a cosine target beside a one-number output, shows its decisions on every step and says the target leaves them unjudged', () => {
    const model = path.join(tmp, 'score-and-hidden.onnx');
    fs.writeFileSync(model, encode(scoreModel(true)));
    const calib = path.join(tmp, 'calib-hidden');
    fs.mkdirSync(calib, { recursive: true });
    for (let k = 0; k < 6; k++)
      fs.writeFileSync(path.join(calib, `${k}.npy`), npyBytes(seededFloats(48, 30 + k, -1, 1), [1, 6, 8], '<f4'));
    const r = qstudio(
      'suggest',
      model,
      '--calib',
      calib,
      '--config',
      'XINT8',
      '--target',
      '0.99999',
      '--max-steps',
      '1',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^step 0: starting configuration → cosine [\d.]+, decision [\d.]+ \(/m);
    expect(r.stdout).toMatch(/^step 1: .* → cosine [\d.]+, decision [\d.]+ (kept|not kept)/m);
    expect(r.stdout).toMatch(/target cosine 0\.99999: best cosine [\d.]+ \(start [\d.]+\), decision [\d.]+, stopped:/);
    expect(r.stderr).toMatch(
      /note: the cosine target judges only the outputs of more than one number a sample; .*shown beside each step \("decision", [\d.]+ here\), and --target decision:<share> aims at them/,
    );
  });
});
