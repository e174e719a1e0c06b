/**
 * Segmentation end to end through `qstudio evaluate --labels <masks>`: a small per-pixel classifier built in
 * code (a 1×1 Conv whose class is the strongest colour channel) on PNG photos made here, grayscale PNG masks
 * as labels. The float model against itself and against masks that say exactly what it computes: mIoU 1;
 * a mask class out of range, a mask of another size, a colour mask: named errors.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pngjs from 'pngjs';
import zlib from 'node:zlib';
import { encode, makeNode } from '../src/core/onnx/index.ts';
import { f32, floatIO, smallModel } from './helpers/smallModels.ts';
import { qstudio } from './helpers/qstudio.ts';

const SIZE = 16;

function png(file: string, width: number, height: number, pixel: (x: number, y: number) => [number, number, number]) {
  const p = new pngjs.PNG({ width, height });
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) p.data.set([...pixel(x, y), 255], (y * width + x) * 4);
  fs.writeFileSync(file, pngjs.PNG.sync.write(p));
}

/** An indexed-colour PNG written by hand (pngjs writes none): IHDR colour type 3, PLTE, one deflated IDAT. */
function palettePng(
  file: string,
  width: number,
  height: number,
  palette: [number, number, number][],
  index: (x: number, y: number) => number,
) {
  const chunk = (type: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(body.length, 0);
    head.write(type, 4, 'ascii');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(Buffer.concat([head.subarray(4), body])) >>> 0, 0);
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 3, 0, 0, 0], 8);
  const rows = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) rows[y * (width + 1) + 1 + x] = index(x, y);
  fs.writeFileSync(
    file,
    Buffer.concat([
      Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
      chunk('IHDR', ihdr),
      chunk('PLTE', Buffer.from(palette.flat())),
      chunk('IDAT', zlib.deflateSync(rows)),
      chunk('IEND', Buffer.alloc(0)),
    ]),
  );
}

/** Which colour channel dominates pixel (x, y) of photo k: three vertical bands, rotated per photo. */
const band = (k: number, x: number) => (Math.floor((x * 3) / SIZE) + k) % 3;

describe('qstudio evaluate --task segment with PNG masks', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-seg-'));
  const model = path.join(tmp, 'seg.onnx');
  fs.writeFileSync(
    model,
    encode(
      smallModel({
        opset: 13,
        inputs: [floatIO('image', [1, 3, SIZE, SIZE])],
        outputs: [floatIO('classes', [1, 3, SIZE, SIZE])],
        initializers: [f32('w', [3, 3, 1, 1], [1, 0, 0, 0, 1, 0, 0, 0, 1])],
        nodes: [makeNode('Conv', ['image', 'w'], ['classes'], 'conv')],
      }),
    ),
  );
  const data = path.join(tmp, 'data');
  const masks = path.join(tmp, 'masks');
  fs.mkdirSync(data);
  fs.mkdirSync(masks);
  for (let k = 0; k < 3; k++) {
    png(
      path.join(data, `photo${k}.png`),
      SIZE,
      SIZE,
      (x) => [0, 1, 2].map((c) => (c === band(k, x) ? 200 : 40)) as [number, number, number],
    );
    png(path.join(masks, `photo${k}.png`), SIZE, SIZE, (x, y) =>
      x === 0 && y === 0 ? [255, 255, 255] : [band(k, x), band(k, x), band(k, x)],
    );
  }

  it('the float model against itself and against masks of what it computes: mIoU exactly 1', () => {
    const r = qstudio('evaluate', model, model, '--data', data, '--preprocess', 'unit', '--labels', masks, '--json');
    expect(r.stderr).toMatch(/task: segmentation \(3 classes\)/);
    expect(r.code).toBe(0);
    const task = JSON.parse(r.stdout).task;
    expect(task.task).toBe('segment');
    expect(task.agreement.miou).toBe(1);
    expect(task.labels.figures).toEqual([{ metric: 'mIoU', float: 1, quantized: 1, drop: 0 }]);
  });

  it('a mask class out of range, a mask of another size, a colour mask: named errors', () => {
    png(path.join(masks, 'photo1.png'), SIZE, SIZE, () => [7, 7, 7]);
    const range = qstudio('evaluate', model, model, '--data', data, '--preprocess', 'unit', '--labels', masks);
    expect(range.code).toBe(2);
    expect(range.stderr).toMatch(/TaskLabelError: .*has class 7, out of range: the model has 3 classes/);
    png(path.join(masks, 'photo1.png'), SIZE / 2, SIZE, () => [1, 1, 1]);
    expect(qstudio('evaluate', model, model, '--data', data, '--preprocess', 'unit', '--labels', masks).stderr).toMatch(
      /is 8×16, its image 16×16/,
    );
    png(path.join(masks, 'photo1.png'), SIZE, SIZE, () => [1, 2, 3]);
    expect(qstudio('evaluate', model, model, '--data', data, '--preprocess', 'unit', '--labels', masks).stderr).toMatch(
      /a colour mask/,
    );
  });

  it('indexed-colour (palette) masks, as Pascal VOC saves them: the class is the palette index, not the colour', () => {
    const voc = path.join(tmp, 'voc');
    fs.mkdirSync(voc);
    // VOC's first colours (background black, then dark red, dark green) and its cream 255 "ignore" entry.
    const palette: [number, number, number][] = Array.from({ length: 256 }, (_, i) =>
      i === 0
        ? [0, 0, 0]
        : i === 1
          ? [128, 0, 0]
          : i === 2
            ? [0, 128, 0]
            : i === 255
              ? [224, 224, 192]
              : [i, i, 255 - i],
    );
    for (let k = 0; k < 3; k++)
      palettePng(path.join(voc, `photo${k}.png`), SIZE, SIZE, palette, (x, y) =>
        x === 0 && y === 0 ? 255 : band(k, x),
      );
    const r = qstudio('evaluate', model, model, '--data', data, '--preprocess', 'unit', '--labels', voc, '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).task.labels.figures).toEqual([{ metric: 'mIoU', float: 1, quantized: 1, drop: 0 }]);
    // Two used entries of one colour: which class a pixel is cannot be told, so it is refused by name.
    const twin = palette.map((c, i) => (i === 2 ? palette[1] : c));
    palettePng(path.join(voc, 'photo1.png'), SIZE, SIZE, twin, (x) => band(1, x));
    const bad = qstudio('evaluate', model, model, '--data', data, '--preprocess', 'unit', '--labels', voc);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/palette entries 1 and 2 have the same colour/);
  });
});
