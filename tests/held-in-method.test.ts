import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IMAGES, MODELS } from './helpers/fixtures.ts';
import { qstudio } from './helpers/qstudio.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-held-in-'));
const calib = path.join(tmp, 'calib');
fs.mkdirSync(calib);
for (const f of ['grace_hopper.jpg', 'astronaut.png', 'camera.png', 'coffee.png'])
  fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(calib, f));
const mnist = path.join(MODELS, 'mnist.onnx');

describe('qstudio quantize --calibration-method held-in', () => {
  it("measures each method on the calibration images (even calibrate, odd judge at onnxruntime's default), keeps the best, and writes what that method writes", () => {
    const out = path.join(tmp, 'held-in.onnx');
    const r = qstudio(
      'quantize',
      mnist,
      '--calib',
      calib,
      '--preprocess',
      'unit',
      '--config',
      'A8W8',
      '--calibration-method',
      'held-in',
      '-o',
      out,
    );
    expect(r.code, r.stderr).toBe(0);
    const line = r.stderr.split('\n').find((l) => l.startsWith('calibration method chosen on'))!;
    expect(line).toContain("mean output cosine at onnxruntime's default 'all'");
    const measured = [...line.matchAll(/(MinMax|MinMSE|Entropy|Percentile) (\d\.\d{5})/g)].map((m) => ({
      method: m[1],
      cosine: Number(m[2]),
    }));
    expect(measured.map((m) => m.method)).toEqual(['MinMax', 'MinMSE', 'Entropy', 'Percentile']); // the preset's own first
    const chosen = line.match(/→ (\w+)$/)![1];
    const best = Math.max(...measured.map((m) => m.cosine));
    expect(measured.find((m) => m.method === chosen)!.cosine).toBe(best);
    expect(measured.find((m) => m.cosine === best)!.method).toBe(chosen); // the first best: the preset's own keeps a tie
    // The written model is the one the chosen method writes when named.
    const named = path.join(tmp, 'named.onnx');
    expect(
      qstudio(
        'quantize',
        mnist,
        '--calib',
        calib,
        '--preprocess',
        'unit',
        '--config',
        'A8W8',
        '--calibration-method',
        chosen,
        '-o',
        named,
      ).code,
    ).toBe(0);
    expect(Buffer.compare(fs.readFileSync(out), fs.readFileSync(named))).toBe(0);
  });

  it('refuses --ranges and a folder of fewer than two samples, by name', () => {
    const ranges = qstudio(
      'quantize',
      mnist,
      '--ranges',
      path.join(tmp, 'none.json'),
      '--config',
      'A8W8',
      '--calibration-method',
      'held-in',
      '-o',
      path.join(tmp, 'x.onnx'),
    );
    expect(ranges.code).not.toBe(0);
    expect(ranges.stderr).toContain('--calibration-method held-in calibrates: give --calib <dir>, not --ranges');
    const one = path.join(tmp, 'one');
    fs.mkdirSync(one);
    fs.copyFileSync(path.join(calib, 'coffee.png'), path.join(one, 'coffee.png'));
    const few = qstudio(
      'quantize',
      mnist,
      '--calib',
      one,
      '--preprocess',
      'unit',
      '--config',
      'A8W8',
      '--calibration-method',
      'held-in',
      '-o',
      path.join(tmp, 'y.onnx'),
    );
    expect(few.code).not.toBe(0);
    expect(few.stderr).toContain('needs at least 2 calibration samples');
  });
});
