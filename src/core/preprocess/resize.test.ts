import { describe, expect, it } from 'vitest';
import { bilinearByte, planResize, resizeRgba, type RgbaImage } from './resize.ts';

/** A gray RGBA image from rows of levels (R = G = B = level, A = 255). */
function gray(rows: number[][]): RgbaImage {
  const height = rows.length;
  const width = rows[0].length;
  const data = new Uint8ClampedArray(width * height * 4);
  rows.flat().forEach((v, i) => data.set([v, v, v, 255], i * 4));
  return { data, width, height };
}

/** The R channel of an RGBA image, as rows. */
function levels(image: RgbaImage): number[][] {
  const rows: number[][] = [];
  for (let y = 0; y < image.height; y++) {
    rows.push(Array.from({ length: image.width }, (_, x) => image.data[(y * image.width + x) * 4]));
  }
  return rows;
}

describe('bilinear sampling (half-pixel centres, edge clamped, as OpenCV INTER_LINEAR)', () => {
  it('upsamples 2×2 to 4×4: samples at −0.25, 0.25, 0.75, 1.25 of each axis, clamped', () => {
    const out = resizeRgba(
      gray([
        [0, 100],
        [200, 40],
      ]),
      4,
      4,
      { mode: 'stretch' },
    );
    expect(levels(out)).toEqual([
      [0, 25, 75, 100],
      [50, 59, 76, 85], // 58.75 → 59, 76.25 → 76
      [150, 126, 79, 55], // 126.25 → 126, 78.75 → 79
      [200, 160, 80, 40],
    ]);
  });

  it('downsamples 3×1 to 2×1 at source positions 0.25 and 1.75', () => {
    expect(levels(resizeRgba(gray([[0, 100, 200]]), 2, 1, { mode: 'stretch' }))).toEqual([[25, 175]]);
  });

  it('does not antialias: 8×1 to 2×1 reads only source pixels 1–2 and 5–6', () => {
    expect(levels(resizeRgba(gray([[0, 10, 20, 0, 0, 60, 80, 0]]), 2, 1, { mode: 'stretch' }))).toEqual([[15, 70]]);
  });

  it('rounds half up to a byte', () => {
    expect(levels(resizeRgba(gray([[2, 3]]), 1, 1, { mode: 'stretch' }))).toEqual([[3]]);
    expect(bilinearByte(0, 1, 0, 1, 0.5, 0)).toBe(1);
    expect(bilinearByte(10, 20, 30, 40, 0.5, 0.5)).toBe(25);
  });

  it('copies an image resized to its own size exactly, alpha included', () => {
    const image = {
      data: Uint8ClampedArray.from({ length: 5 * 3 * 4 }, (_, i) => (i * 37) % 256),
      width: 5,
      height: 3,
    };
    expect(resizeRgba(image, 5, 3, { mode: 'stretch' }).data).toEqual(image.data);
  });

  it('interpolates each channel separately, alpha too', () => {
    const image = { data: new Uint8ClampedArray([255, 0, 10, 0, 0, 255, 30, 255]), width: 2, height: 1 };
    expect(Array.from(resizeRgba(image, 1, 1, { mode: 'stretch' }).data)).toEqual([128, 128, 20, 128]);
  });
});

describe('letterbox', () => {
  it('centers a 3×1 image in 4×4 with the odd padding row at the bottom', () => {
    const out = resizeRgba(gray([[0, 100, 200]]), 4, 4, { mode: 'letterbox', padValue: 114 });
    expect(levels(out)).toEqual([
      [114, 114, 114, 114],
      [0, 63, 138, 200], // 3 → 4 columns: 62.5 → 63, 137.5 → 138
      [114, 114, 114, 114],
      [114, 114, 114, 114],
    ]);
    expect(out.data[3]).toBe(255); // padding is opaque
  });

  it("puts the image at the top-left with 'topLeft' (YOLOX preproc): padding right and bottom only", () => {
    expect(
      levels(resizeRgba(gray([[0, 100, 200]]), 4, 4, { mode: 'letterbox', align: 'topLeft', padValue: 114 })),
    ).toEqual([
      [0, 63, 138, 200],
      [114, 114, 114, 114],
      [114, 114, 114, 114],
      [114, 114, 114, 114],
    ]);
  });

  it('centers horizontally with the odd padding column on the right', () => {
    expect(
      levels(
        resizeRgba(
          gray([
            [10, 20],
            [30, 40],
          ]),
          5,
          2,
          { mode: 'letterbox', padValue: 0 },
        ),
      ),
    ).toEqual([
      [0, 10, 20, 0, 0],
      [0, 30, 40, 0, 0],
    ]);
  });

  it('plans the YOLOX demo photo: 768×576 into 416×416 is 416×312 at (0, 0)', () => {
    const plan = planResize(768, 576, 416, 416, 'letterbox', 'topLeft');
    expect([plan.scaledWidth, plan.scaledHeight, plan.offsetX, plan.offsetY]).toEqual([416, 312, 0, 0]);
    expect([plan.y.start, plan.y.end, plan.x.start, plan.x.end]).toEqual([0, 312, 0, 416]);
  });

  it('computes sizes exactly: a 55 px wide image fills 224 (float int(55 · (224 / 55)) would give 223)', () => {
    expect(Math.floor(55 * (224 / 55))).toBe(223);
    const plan = planResize(55, 20, 224, 224, 'letterbox');
    expect([plan.scaledWidth, plan.scaledHeight]).toEqual([224, 81]); // floor(20 · 224 / 55) = floor(81.45)
    expect(plan.offsetY).toBe(71); // floor((224 − 81) / 2)
  });
});

describe('crop (short side to the target, center crop)', () => {
  /** The levels of a gray image of `rows` cropped to `width` × `height`. */
  const cropped = (rows: number[][], width: number, height: number) =>
    levels(resizeRgba(gray(rows), width, height, { mode: 'crop' }));

  it('keeps the middle columns of a wide image, cutting the odd one on the right', () => {
    const fourWide = [
      [1, 2, 3, 4],
      [5, 6, 7, 8],
    ];
    const fiveWide = [
      [1, 2, 3, 4, 5],
      [6, 7, 8, 9, 10],
    ];
    expect(cropped(fourWide, 2, 2)).toEqual(fourWide.map((row) => row.slice(1, 3)));
    expect(cropped(fiveWide, 2, 2)).toEqual(fiveWide.map((row) => row.slice(1, 3)));
  });

  it('keeps the middle rows of a tall image', () => {
    expect(cropped([[1], [2], [3], [4]], 1, 2)).toEqual([[2], [3]]);
  });

  it('scales by the larger ratio before cropping: 4×2 → 1×1 averages the top-left 2×2 block', () => {
    const plan = planResize(4, 2, 1, 1, 'crop');
    expect([plan.scaledWidth, plan.scaledHeight, plan.offsetX, plan.offsetY]).toEqual([2, 1, 0, 0]);
    const blocks = [
      [10, 20, 90, 90],
      [30, 40, 90, 90],
    ];
    expect(cropped(blocks, 1, 1)).toEqual([[25]]);
  });
});

describe('stretch', () => {
  it('ignores the aspect ratio', () => {
    const plan = planResize(640, 480, 320, 240, 'stretch');
    expect([plan.scaledWidth, plan.scaledHeight, plan.offsetX, plan.offsetY]).toEqual([320, 240, 0, 0]);
  });
});

describe('argument checks', () => {
  it('refuses data that does not match the size, and empty sizes', () => {
    expect(() => resizeRgba({ data: new Uint8Array(15), width: 2, height: 2 }, 1, 1, { mode: 'stretch' })).toThrow(
      /16/,
    );
    expect(() => planResize(0, 2, 1, 1, 'stretch')).toThrow(/0×2/);
    expect(() => planResize(2, 2, 1.5, 1, 'stretch')).toThrow(/PreprocessError|1.5×1/);
    expect(() => resizeRgba(gray([[1]]), 1, 1, { mode: 'letterbox', padValue: 300 })).toThrow(/300/);
  });
});
