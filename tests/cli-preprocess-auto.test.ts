/**
 * `--preprocess auto` as a user runs it: the command recognises the model's preprocessing, prints
 * what it chose and why, and gives symbolic dimensions values, so a dynamic-shape detector
 * calibrates with no spec file. Without `--preprocess`, the same recognition is used (as the page's form
 * starts from it), and the note says so.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataType, encode, makeGraph, makeModel, makeNode, makeTensor, makeValueInfo } from '../src/core/onnx/index.ts';
import { IMAGES, MODELS } from './helpers/fixtures.ts';
import { qstudio } from './helpers/qstudio.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-auto-'));
const calib = path.join(tmp, 'calib');
fs.mkdirSync(calib);
fs.copyFileSync(path.join(IMAGES, 'photos', 'grace_hopper.jpg'), path.join(calib, 'grace_hopper.jpg'));

describe('qstudio --preprocess auto', () => {
  it('recognises YuNet, prints its choice, and calibrates its symbolic input at the default size', () => {
    const out = path.join(tmp, 'yunet.ranges.json');
    const r = qstudio(
      'calibrate',
      path.join(MODELS, 'yunet-n-dynamic.onnx'),
      '--calib',
      calib,
      '--preprocess',
      'auto',
      '-o',
      out,
    );
    expect(r.stderr).toContain(
      '--preprocess auto: YuNet face detector (high confidence): preset bgr-255 — BGR, scale 1',
    );
    expect(r.stderr).toContain('dims batch=1, height=640, width=640');
    expect(r.stderr).toContain("YuNet's per-stride heads");
    expect(r.code).toBe(0);
    // The input's range is that of BGR bytes: 0–255, not 0–1.
    const ranges = JSON.parse(fs.readFileSync(out, 'utf8'));
    expect(ranges.ranges.input[1]).toBeGreaterThan(200);
  });

  it('without --preprocess, uses what auto recognises, as the page does, and says so', () => {
    const out = path.join(tmp, 'uf.json');
    const r = qstudio('calibrate', path.join(MODELS, 'ultraface-rfb-320.onnx'), '--calib', calib, '-o', out);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'no --preprocess given: using the recognised preprocessing, as the page does (name a preset to change it',
    );
    expect(r.stderr).toContain('UltraFace face detector (high confidence): preset ultraface');
    // UltraFace's own normalisation, (x − 127) / 128: the input reaches below zero, which 'unit' (0–1) never does.
    const ranges = JSON.parse(fs.readFileSync(out, 'utf8'));
    expect(ranges.ranges.input[0]).toBeLessThan(-0.5);
  });

  it('a model of no known family keeps unit (RGB, 0–1) without --preprocess', () => {
    const plain = path.join(tmp, 'plain.onnx');
    const w = makeTensor('w', DataType.FLOAT, [2, 3, 1, 1], Float32Array.of(1, 0, 0, 0, 1, 1));
    const graph = makeGraph({
      node: [makeNode('Conv', ['x', 'w'], ['y'])],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 3, 48, 40])],
      output: [makeValueInfo('y', DataType.FLOAT, [1, 2, 48, 40])],
      initializer: [w],
    });
    fs.writeFileSync(plain, encode(makeModel(graph)));
    const out = path.join(tmp, 'plain.json');
    const r = qstudio('calibrate', plain, '--calib', calib, '-o', out);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('no known family (low confidence): preset unit');
    const [lo, hi] = JSON.parse(fs.readFileSync(out, 'utf8')).ranges.x;
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThanOrEqual(1);
  });

  it('quantize and calibrate pass the file name to auto: a small mask model named isnet_*.onnx is a background-removal model', () => {
    // 3 × 64 × 64 in, one 64 × 64 map out: too small to be recognised by its shape alone, so only the name tells.
    const isnet = path.join(tmp, 'isnet_tiny.onnx');
    const w = makeTensor('w', DataType.FLOAT, [1, 3, 1, 1], Float32Array.of(0.3, 0.4, 0.3));
    const graph = makeGraph({
      node: [makeNode('Conv', ['input', 'w'], ['c']), makeNode('Sigmoid', ['c'], ['mask'])],
      input: [makeValueInfo('input', DataType.FLOAT, [1, 3, 64, 64])],
      output: [makeValueInfo('mask', DataType.FLOAT, [1, 1, 64, 64])],
      initializer: [w],
    });
    fs.writeFileSync(isnet, encode(makeModel(graph)));
    const said = '--preprocess auto: salient-object / background-removal model';
    const calibrated = qstudio(
      'calibrate',
      isnet,
      '--calib',
      calib,
      '--preprocess',
      'auto',
      '-o',
      path.join(tmp, 'i.json'),
    );
    expect(calibrated.code).toBe(0);
    expect(calibrated.stderr).toContain(said);
    const quantized = qstudio(
      'quantize',
      isnet,
      '--calib',
      calib,
      '--config',
      'XINT8',
      '--preprocess',
      'auto',
      '-o',
      path.join(tmp, 'isnet_tiny.q.onnx'),
    );
    expect(quantized.code).toBe(0);
    expect(quantized.stderr).toContain(said);
  });
});
