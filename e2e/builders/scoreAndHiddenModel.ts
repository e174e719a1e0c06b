/**
 * Writes a model with an output of one number a sample beside another (a sigmoid score beside a hidden layer, as Silero
 * VAD's speech probability beside its state: tests/helpers/smallModels.ts scoreModel) and six .npy samples, for
 * e2e/unjudged-score.spec.ts (which cannot import the core's protobuf schema itself).
 * Usage: node --import tsx e2e/builders/scoreAndHiddenModel.ts <dir>   (writes score-and-hidden.onnx and data/*.npy)
 */
import fs from 'node:fs';
import path from 'node:path';
import { encode } from '../../src/core/onnx/index.ts';
import { seededFloats } from '../../tests/helpers/fixtures.ts';
import { npyBytes } from '../../tests/helpers/npyFiles.ts';
import { scoreModel } from '../../tests/helpers/smallModels.ts';

const dir = process.argv[2];
fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
fs.writeFileSync(path.join(dir, 'score-and-hidden.onnx'), encode(scoreModel(true)));
for (let k = 0; k < 6; k++)
  fs.writeFileSync(path.join(dir, 'data', `${k}.npy`), npyBytes(seededFloats(48, 30 + k, -1, 1), [1, 6, 8], '<f4'));
