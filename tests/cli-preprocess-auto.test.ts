/**
 * `--preprocess auto` as a user runs it: the command recognises the model's preprocessing, prints
 * what it chose and why, and gives symbolic dimensions values, so a dynamic-shape detector
 * calibrates with no spec file. Without `--preprocess`, the note says what `auto` would pick.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

  it('without --preprocess, keeps unit and names what auto would choose', () => {
    const r = qstudio(
      'calibrate',
      path.join(MODELS, 'ultraface-rfb-320.onnx'),
      '--calib',
      calib,
      '-o',
      path.join(tmp, 'uf.json'),
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'this model looks like a UltraFace face detector: --preprocess auto would use ultraface',
    );
  });
});
