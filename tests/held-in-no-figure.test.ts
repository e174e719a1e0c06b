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
import {
  DataType,
  encode,
  intAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
} from '../src/core/onnx/index.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { npyBytes } from './helpers/npyFiles.ts';
import { qstudio } from './helpers/qstudio.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-held-in-no-figure-'));

/** A wake-word-shaped classifier: Flatten → Gemm → Relu → Gemm → Sigmoid, one score a sample. */
function scoreModel(file: string): void {
  const graph = makeGraph({
    node: [
      makeNode('Flatten', ['x'], ['f']),
      makeNode('Gemm', ['f', 'w1', 'b1'], ['g1'], 'gemm1', [intAttribute('transB', 1)]),
      makeNode('Relu', ['g1'], ['r']),
      makeNode('Gemm', ['r', 'w2', 'b2'], ['g2'], 'gemm2', [intAttribute('transB', 1)]),
      makeNode('Sigmoid', ['g2'], ['score']),
    ],
    input: [makeValueInfo('x', DataType.FLOAT, [1, 6, 8])],
    output: [makeValueInfo('score', DataType.FLOAT, [1, 1])],
    initializer: [
      makeTensor('w1', DataType.FLOAT, [16, 48], seededFloats(16 * 48, 3, -0.3, 0.3)),
      makeTensor('b1', DataType.FLOAT, [16], seededFloats(16, 4, -0.1, 0.1)),
      makeTensor('w2', DataType.FLOAT, [1, 16], seededFloats(16, 5, -0.5, 0.5)),
      makeTensor('b2', DataType.FLOAT, [1], Float32Array.of(0.2)),
    ],
  });
  fs.writeFileSync(file, encode(makeModel(graph, { '': 13 }, 7)));
}

describe('the held-in choice where every output is one number a sample', () => {
  it("says there is no figure to choose by, keeps A8W8's own method and writes MinMax's bytes", () => {
    const model = path.join(tmp, 'score.onnx');
    scoreModel(model);
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
