/**
 * Task targets beyond the ladder, as a user runs them: `qstudio suggest --target map50:…` (the exclusion search
 * aims at the detector's mAP@0.5 against the float model's boxes, each step printing it), `--max-drop` against hand
 * labels (the target is the float model's figure less the drop), and `qstudio quantize --mixed-precision --target
 * map50:…` and `--target top1:…` (the search judged by the figure on the --calib images). The target syntax and its measure are the
 * ladder's (core/recovery/targetMeasure.ts).
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IMAGES, MODELS } from './helpers/fixtures.ts';
import { qstudio } from './helpers/qstudio.ts';

const LABELS = path.resolve(import.meta.dirname, 'labels/hand-labels.coco.json');

describe('task targets in qstudio suggest, quantize --mixed-precision and ladder', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-task-target-'));
  const photos = path.join(tmp, 'photos');
  fs.mkdirSync(photos);
  for (const f of ['grace_hopper.jpg', 'astronaut.png', 'face.png'])
    fs.copyFileSync(path.join(IMAGES, 'photos', f), path.join(photos, f));
  const ultraface = path.join(MODELS, 'ultraface-rfb-320.onnx');

  it("suggest --target map:1: every step measures the face boxes' mAP@0.5:0.95 against the float model's", () => {
    const r = qstudio(
      'suggest',
      ultraface,
      '--calib',
      photos,
      '--config',
      'XINT8',
      '--preprocess',
      'ultraface',
      '--target',
      'map:1',
      '--max-steps',
      '1',
    );
    expect(r.stderr).toMatch(/task: UltraFace face detector/);
    expect(r.stderr).toMatch(/target map 1, at most 1 steps/);
    expect(r.code).toBe(0);
    // XINT8 keeps the cosine at 0.9999 while the boxes move: mAP@0.5:0.95 about 0.85 on these photos.
    const start = Number(r.stdout.match(/step 0: starting configuration → map (0\.\d{6}), cosine 0\.9\d{5}/)![1]);
    expect(start).toBeLessThan(1);
    expect(r.stdout).toMatch(/step 1: exclude .* → map [01]\.\d{6}, cosine \d\.\d{6} (kept|not kept)/);
    expect(r.stdout).toMatch(/did not reach target map 1: best map 0\.\d{6}/);
    // A task figure without images, or out of its range, is refused by name.
    const bad = qstudio(
      'suggest',
      ultraface,
      '--calib',
      photos,
      '--config',
      'XINT8',
      '--preprocess',
      'ultraface',
      '--target',
      'map50:1.5',
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/target value "1.5" is not a valid map50/);
  });

  it("suggest --max-drop against hand labels: the target is the float model's figure less the drop", () => {
    const data = path.join(tmp, 'coco');
    fs.mkdirSync(data);
    for (const f of ['photos/yolox_dog.jpg', 'coco/000000001584.jpg'])
      fs.copyFileSync(path.join(IMAGES, f), path.join(data, path.basename(f)));
    const labels = JSON.parse(fs.readFileSync(LABELS, 'utf8'));
    const subset = {
      ...labels,
      images: labels.images.filter((i: { id: number }) => i.id !== 2),
      annotations: labels.annotations.filter((a: { image_id: number }) => a.image_id !== 2),
    };
    const file = path.join(tmp, 'labels.json');
    fs.writeFileSync(file, JSON.stringify(subset));
    const r = qstudio(
      'suggest',
      path.join(MODELS, 'yolox-nano.onnx'),
      '--calib',
      data,
      '--config',
      'A16W8',
      '--preprocess',
      'auto',
      '--labels',
      file,
      '--max-drop',
      '100%',
      '--max-steps',
      '1',
    );
    expect(r.code).toBe(0);
    const float = Number(
      r.stderr.match(
        /the float model's map against the labels: (\d\.\d+); with --max-drop 100% the target is map ≥ 0\.00000/,
      )![1],
    );
    expect(float).toBeGreaterThan(0.3);
    // Every figure is at least 0: met at the start.
    expect(r.stdout).toMatch(/reached target map 0: best map \d\.\d{6}/);
    const noLabels = qstudio(
      'suggest',
      path.join(MODELS, 'yolox-nano.onnx'),
      '--calib',
      data,
      '--config',
      'A16W8',
      '--preprocess',
      'auto',
      '--task',
      'detect',
      '--max-drop',
      '1%',
    );
    expect(noLabels.code).toBe(2);
    expect(noLabels.stderr).toMatch(/--max-drop is measured against labels: give --labels/);
  });

  it('quantize --mixed-precision --target map50: the search is judged by the figure on the --calib images', () => {
    const out = path.join(tmp, 'mixed.onnx');
    const r = qstudio(
      'quantize',
      ultraface,
      '--calib',
      photos,
      '--config',
      'XINT8',
      '--preprocess',
      'ultraface',
      '--mixed-precision',
      '--target',
      'map50:0.05',
      '--sensitivity-samples',
      '2',
      '-o',
      out,
    );
    expect(r.stderr).toMatch(/mixed precision: budget .*, target map50 0\.05 on 2 image\(s\)/);
    expect(r.stderr).toMatch(
      /mixed precision: map50 \d\.\d{5} → \d\.\d{5} on the sensitivity images \(target reached\)/,
    );
    expect(r.code).toBe(0);
    expect(fs.existsSync(out)).toBe(true);
  });

  it('quantize --mixed-precision --target top1: each measurement scores top-1 agreement with the float model', () => {
    const out = path.join(tmp, 'mnist-top1.onnx');
    const r = qstudio(
      'quantize',
      path.join(MODELS, 'mnist.onnx'),
      '--calib',
      photos,
      '--config',
      'XINT8',
      '--mixed-precision',
      '--target',
      'top1:0.99',
      '--sensitivity-samples',
      '3',
      '-o',
      out,
    );
    expect(r.stderr).toMatch(/mixed precision: budget .*, target top1 0\.99 on 3 image\(s\)/);
    expect(r.stderr).toMatch(/\[1\] base: cosine \d\.\d{5}, top1 \d\.\d{5}/);
    expect(r.stderr).toMatch(/mixed precision: top1 \d\.\d{5} → \d\.\d{5} on the sensitivity images/);
    expect(r.code).toBe(0);
    expect(fs.existsSync(out)).toBe(true);
  });

  it('ladder --target map:0.5: the same target measured the same way (one rung)', () => {
    const r = qstudio(
      'ladder',
      ultraface,
      '--calib',
      photos,
      '--preprocess',
      'ultraface',
      '--target',
      'map:0.5',
      '--formats',
      'XINT8',
      '-o',
      path.join(tmp, 'ladder.onnx'),
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/rung 1 XINT8: map 0\.\d{5} \(cosine 0\.9\d{4}.*map50 \d\.\d{5}\) — meets the target/);
    expect(r.stdout).toMatch(/reached map ≥ 0\.5 after 1 rung/);
  });
});
