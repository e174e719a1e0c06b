/**
 * The one labels reader over files as the page and the CLI list them: a folder per class by its relative paths,
 * YOLO .txt files (YOLO's classes.txt passed over), a recognizer's lines file with its dictionary recognised among
 * the files, PNG masks through the side's decoder; what fits no kind is a named TaskLabelError.
 */
import { describe, expect, it } from 'vitest';
import { TaskLabelError } from './errors.ts';
import type { TaskHead } from './heads.ts';
import { readLabelSource, type DecodedMask, type LabelSourceFile } from './labelSource.ts';

const file = (path: string, text = ''): LabelSourceFile => ({
  path,
  read: async () => new TextEncoder().encode(text),
});
const images = [
  { name: 'a.png', width: 4, height: 2 },
  { name: 'b.png', width: 4, height: 2 },
];
const noDecode = (): DecodedMask => {
  throw new Error('no mask expected');
};

describe('readLabelSource', () => {
  it('a folder per class: the class is the folder holding the image', async () => {
    const head: TaskHead = { task: 'classify', output: 'y', classNames: null };
    const outputs = [{ name: 'y', elemType: 'float32', shape: [1, 10] }];
    const r = await readLabelSource(
      'digits',
      [file('digits/3/a.png'), file('digits/7/b.png')],
      head,
      outputs,
      images,
      noDecode,
    );
    expect(r.kind).toBe('2 class folders');
    expect(r.labels.get('a.png')).toEqual({ kind: 'class', label: 3 });
    expect(r.labels.get('b.png')).toEqual({ kind: 'class', label: 7 });
    await expect(readLabelSource('x', [file('a.png'), file('b.png')], head, outputs, images, noDecode)).rejects.toThrow(
      /a\.png is in no class folder/,
    );
    await expect(
      readLabelSource('x', [file('d/12/a.png'), file('d/1/b.png')], head, outputs, images, noDecode),
    ).rejects.toThrow(/class 12 is out of range/);
  });

  it('YOLO .txt files by image stem; classes.txt is passed over; one naming no image is refused', async () => {
    const head: TaskHead = {
      task: 'detect',
      head: { kind: 'yolox', output: 'o', raw: true, strides: [8, 16, 32] },
      params: { scoreThreshold: 0.3, minScore: 0.01, nmsIou: 0.45, maxDetections: 100 },
      classNames: null,
    };
    const outputs = [{ name: 'o', elemType: 'float32', shape: [1, 10, 7] }];
    const r = await readLabelSource(
      'labels',
      [file('labels/a.txt', '1 0.5 0.5 0.5 0.5'), file('labels/classes.txt', 'cat\ndog')],
      head,
      outputs,
      images,
      noDecode,
    );
    expect(r.labels.get('a.png')).toEqual({
      kind: 'boxes',
      boxes: [{ x1: 1, y1: 0.5, x2: 3, y2: 1.5, score: 1, label: 1 }],
    });
    expect(r.labels.get('b.png')).toEqual({ kind: 'boxes', boxes: [] });
    await expect(
      readLabelSource('labels', [file('labels/c.txt', '0 0.5 0.5 0.1 0.1')], head, outputs, images, noDecode),
    ).rejects.toThrow(TaskLabelError);
  });

  it("a recognizer's dictionary among the files decodes its text; without it, a named error", async () => {
    const head: TaskHead = { task: 'text', output: 't' };
    const outputs = [{ name: 't', elemType: 'float32', shape: [1, 40, 5] }];
    const lines = file('labels.txt', 'a.png\tab\nb.png\tcd\n');
    const r = await readLabelSource('x', [lines, file('keys.txt', 'a\nb\nc\nd\n')], head, outputs, images, noDecode);
    expect(r.head).toEqual({ task: 'text', output: 't', dictionary: ['', 'a', 'b', 'c', 'd'] });
    expect(r.labels.get('b.png')).toEqual({ kind: 'text', text: 'cd' });
    await expect(readLabelSource('x', [lines], head, outputs, images, noDecode)).rejects.toThrow(
      /give the recognizer's dictionary/,
    );
  });

  it('PNG masks through the caller’s decoder, named as their images; a mask of another size is refused', async () => {
    const head: TaskHead = { task: 'segment', output: 's', maskThreshold: 0.5, classNames: null };
    const outputs = [{ name: 's', elemType: 'float32', shape: [1, 3, 2, 4] }];
    const gray = (width: number, height: number, v: number): DecodedMask => ({
      width,
      height,
      data: Array.from({ length: width * height * 4 }, (_, k) => (k % 4 === 3 ? 255 : v)),
    });
    const r = await readLabelSource('m', [file('m/a.png'), file('m/b.png')], head, outputs, images, (p) =>
      gray(4, 2, p.endsWith('a.png') ? 1 : 2),
    );
    expect(r.labels.get('a.png')).toMatchObject({ kind: 'mask', width: 4, height: 2 });
    expect([...(r.labels.get('b.png') as { data: Uint8Array }).data]).toEqual(Array(8).fill(2));
    await expect(
      readLabelSource('m', [file('m/a.png'), file('m/b.png')], head, outputs, images, () => gray(3, 2, 1)),
    ).rejects.toThrow(/the mask of "a.png" is 3×2, its image 4×2/);
  });
});
