import { describe, expect, it } from 'vitest';
import { decodeBoxes } from './decodeHead.ts';
import { DEFAULT_DETECTION_PARAMS, type TaskHead } from './heads.ts';
import { TaskHeadError } from './errors.ts';
import { classIoUs, emptyConfusion, addPixels, meanIoU } from './segmentation.ts';
import { evaluateTask } from './taskEvaluation.ts';
import type { RunOutputs } from './outputs.ts';

const p = { ...DEFAULT_DETECTION_PARAMS, minScore: 0.1 };
const t = (dims: number[], fill: (data: Float32Array) => void = () => {}) => {
  const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
  fill(data);
  return { data, dims };
};
const id = {
  sourceWidth: 64,
  sourceHeight: 64,
  scaledWidth: 64,
  scaledHeight: 64,
  offsetX: 0,
  offsetY: 0,
  width: 64,
  height: 64,
};

describe('box decoders', () => {
  it('YOLOX raw: cell (x 2, y 1) of stride 8, offsets 0.5, log size ln 2: a 16-pixel box centred at (20, 12)', () => {
    const rows = (64 / 8) * (64 / 8) + 16 + 4;
    const out = {
      output: t([1, rows, 7], (d) => {
        const r = 1 * 8 + 2;
        d.set([0.5, 0.5, Math.log(2), Math.log(2), 0.9, 0.2, 0.8], r * 7);
      }),
    };
    const boxes = decodeBoxes(
      { kind: 'yolox', output: 'output', raw: true, strides: [8, 16, 32] },
      out,
      { width: 64, height: 64 },
      p,
    );
    expect(boxes).toHaveLength(1);
    const b = boxes[0];
    expect([b.x1, b.y1, b.x2, b.y2]).toEqual([12, 4, 28, 20].map((v) => expect.closeTo(v, 5))); // ln 2 in float32
    expect(b.label).toBe(1);
    expect(b.score).toBeCloseTo(0.72, 6);
    expect(() =>
      decodeBoxes(
        { kind: 'yolox', output: 'output', raw: true, strides: [8, 16, 32] },
        out,
        { width: 96, height: 64 },
        p,
      ),
    ).toThrow(TaskHeadError);
  });

  it('YOLOv5 rows and YOLOv8 columns decode the same pixel box', () => {
    const v5 = { o: t([1, 2, 7], (d) => d.set([30, 20, 10, 8, 0.5, 0.1, 0.9], 7)) };
    const v8 = {
      o: t([1, 6, 3], (d) => {
        d[1] = 30;
        d[3 + 1] = 20;
        d[6 + 1] = 10;
        d[9 + 1] = 8;
        d[12 + 1] = 0.1;
        d[15 + 1] = 0.45;
      }),
    };
    const a = decodeBoxes({ kind: 'yolov5', output: 'o' }, v5, { width: 64, height: 64 }, p);
    const b = decodeBoxes({ kind: 'yolov8', output: 'o' }, v8, { width: 64, height: 64 }, p);
    expect(a).toEqual([{ x1: 25, y1: 16, x2: 35, y2: 24, score: expect.closeTo(0.45, 6), label: 1 }]);
    expect(b).toEqual(a);
  });

  it('SSD corners: every foreground class of a prior at or above minScore, in input pixels', () => {
    const out = {
      scores: t([1, 2, 3], (d) => d.set([0.1, 0.85, 0.05, 0.95, 0.03, 0.02])),
      boxes: t([1, 2, 4], (d) => d.set([0.25, 0.5, 0.5, 1])),
    };
    const boxes = decodeBoxes(
      { kind: 'ssd', scores: 'scores', boxes: 'boxes', encoding: 'corners' },
      out,
      { width: 64, height: 32 },
      p,
    );
    expect(boxes).toEqual([{ x1: 16, y1: 16, x2: 32, y2: 32, score: expect.closeTo(0.85, 6), label: 0 }]);
  });

  it('YuNet: score √(cls·obj), the cell at column k mod (W/s)', () => {
    const cells = (s: number) => (64 / s) * (64 / s);
    const out: Record<string, { data: Float32Array; dims: number[] }> = {};
    for (const s of [8, 16, 32]) {
      out[`cls_${s}`] = t([1, cells(s), 1]);
      out[`obj_${s}`] = t([1, cells(s), 1]);
      out[`bbox_${s}`] = t([1, cells(s), 4]);
    }
    const k = 3 * 4 + 1; // stride 16: column 1, row 3
    out.cls_16.data[k] = 0.81;
    out.obj_16.data[k] = 1;
    out.bbox_16.data.set([0.5, 0.5, 0, 0], k * 4);
    const [b] = decodeBoxes({ kind: 'yunet', strides: [8, 16, 32] }, out, { width: 64, height: 64 }, p);
    expect(b.score).toBeCloseTo(0.9, 6);
    expect([b.x1, b.y1, b.x2, b.y2]).toEqual([16, 48, 32, 64].map((v) => expect.closeTo(v, 9)));
  });

  it('DB text: a 10 × 4 region of 0.9 becomes one box grown by area·1.5 / perimeter', () => {
    const out = {
      map: t([1, 1, 32, 32], (d) => {
        for (let y = 10; y < 14; y++) for (let x = 5; x < 15; x++) d[y * 32 + x] = 0.9;
      }),
    };
    const [b, ...rest] = decodeBoxes(
      { kind: 'db-text', output: 'map', binaryThreshold: 0.3, unclipRatio: 1.5, minSize: 3 },
      out,
      { width: 64, height: 64 },
      { ...p, nmsIou: 1 },
    );
    expect(rest).toHaveLength(0);
    const grow = (40 * 1.5) / 28;
    expect(b.score).toBeCloseTo(0.9, 6);
    expect([b.x1, b.y1, b.x2, b.y2]).toEqual(
      [(5 - grow) * 2, (10 - grow) * 2, (15 + grow) * 2, (14 + grow) * 2].map((v) => expect.closeTo(v, 9)),
    );
  });

  it('a head that does not fit the outputs is a named error, not a number', () => {
    expect(() =>
      decodeBoxes({ kind: 'yolox', output: 'missing', raw: true, strides: [8] }, {}, { width: 8, height: 8 }, p),
    ).toThrow(/does not have/);
    expect(() => decodeBoxes({ kind: 'yolov5', output: 'o' }, { o: t([1, 10]) }, { width: 8, height: 8 }, p)).toThrow(
      TaskHeadError,
    );
  });
});

/** Independent mIoU: per class, pixels in both over pixels in either, counted directly. */
function referenceMiou(pairs: [number[], number[]][], classes: number): number {
  const ious: number[] = [];
  for (let c = 0; c < classes; c++) {
    let inter = 0,
      union = 0;
    for (const [a, b] of pairs)
      a.forEach((v, k) => {
        inter += +(v === c && b[k] === c);
        union += +(v === c || b[k] === c);
      });
    if (union > 0) ious.push(inter / union);
  }
  return ious.reduce((s, x) => s + x, 0) / ious.length;
}

describe('segmentation mIoU and the task fold', () => {
  it('hand-computed mIoU, and an independent count on random maps to 1e-6', () => {
    const c = emptyConfusion(2);
    addPixels(c, [0, 0, 1, 1], [0, 1, 1, 1]);
    expect(classIoUs(c).map((x) => x.iou)).toEqual([0.5, 2 / 3]);
    expect(meanIoU(c)).toBeCloseTo((0.5 + 2 / 3) / 2, 12);
    let seed = 3;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pairs: [number[], number[]][] = Array.from({ length: 4 }, () => {
      const a = Array.from({ length: 200 }, () => Math.floor(rnd() * 4));
      return [a, a.map((v) => (rnd() < 0.2 ? Math.floor(rnd() * 4) : v))];
    });
    const conf = emptyConfusion(4);
    for (const [a, b] of pairs) addPixels(conf, a, b);
    expect(Math.abs(meanIoU(conf) - referenceMiou(pairs, 4))).toBeLessThan(1e-6);
  });

  it('float against itself is exactly 1 for every task; a flipped class lowers top-1 and shows first', () => {
    const seg: TaskHead = { task: 'segment', output: 's', maskThreshold: 0.5, classNames: null };
    const segOut: RunOutputs = { s: t([1, 3, 8, 8], (d) => d.forEach((_, k) => (d[k] = Math.sin(k)))) };
    expect(
      evaluateTask(seg, [
        {
          name: 'a',
          geometry: { ...id, width: 8, height: 8, scaledWidth: 8, scaledHeight: 8, sourceWidth: 8, sourceHeight: 8 },
          float: segOut,
          quant: segOut,
        },
      ]).agreement.miou,
    ).toBe(1);
    const cls: TaskHead = { task: 'classify', output: 'c', classNames: null };
    const a = { c: t([1, 6], (d) => d.set([0.1, 0.5, 0.2, 0, 0, 0])) };
    const b = { c: t([1, 6], (d) => d.set([0.1, 0.2, 0.5, 0, 0, 0])) };
    const r = evaluateTask(cls, [
      { name: 'same', geometry: id, float: a, quant: a },
      { name: 'flipped', geometry: id, float: a, quant: b },
    ]);
    expect(r.agreement).toEqual({ top1: 0.5, top5: 1 });
    expect(r.perImage[0].name).toBe('flipped');
    // Two classes (a text direction classifier): top-5 always agrees and always holds the label, so it is left out.
    const two = { c: t([1, 2], (d) => d.set([0.7, 0.3])) };
    const twoFlipped = { c: t([1, 2], (d) => d.set([0.3, 0.7])) };
    const r2 = evaluateTask(cls, [
      { name: 'a', geometry: id, float: two, quant: twoFlipped, label: { kind: 'class', label: 0 } },
    ]);
    expect(r2.agreement).toEqual({ top1: 0 });
    expect(r2.labels?.figures.map((f) => f.metric)).toEqual(['top-1 accuracy']);
    expect(r2.labels?.float).toEqual({ top1: 1 });
    const det: TaskHead = { task: 'detect', head: { kind: 'yolov5', output: 'o' }, params: p, classNames: null };
    const o = {
      o: t([1, 3, 7], (d) => {
        d.set([30, 20, 10, 8, 0.9, 0.1, 0.9], 0);
        d.set([10, 10, 6, 6, 0.8, 0.9, 0.1], 7);
        d.set([50, 50, 6, 6, 0.2, 0.9, 0.1], 14);
      }),
    };
    const self = evaluateTask(det, [{ name: 'x', geometry: id, float: o, quant: o }]);
    expect(self.agreement.map50).toBe(1);
    expect(self.agreement.map5095).toBe(1);
    expect(self.changes).toMatchObject({ reference: 2, found: 2, lost: 0, added: 0, moved: 0 });
    const lost = { o: t([1, 3, 7], (d) => d.set(o.o.data)) };
    lost.o.data[7 + 4] = 0.05; // the second box's objectness falls: lost at the found score
    const one = evaluateTask(det, [{ name: 'x', geometry: id, float: o, quant: lost }]);
    expect(one.changes).toMatchObject({ reference: 2, found: 1, lost: 1, added: 0 });
    expect(one.perImage[0].agreement).toBeCloseTo(2 / 3, 12); // F1 of boxes found
  });
});
