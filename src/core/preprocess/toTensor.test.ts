import { describe, expect, it } from 'vitest';
import { grayLuma, imageToTensor, imageToUint8Tensor, resolveImageInput, ycbcrY } from './toTensor.ts';
import { resizeRgba, type RgbaImage } from './resize.ts';
import { validatePreprocess, type PreprocessJson } from './spec.ts';
import { getPreprocessPreset } from './presets.ts';

/** An RGBA image from [r, g, b] (alpha 255) or [r, g, b, a] pixels in one row, or rows of them. */
function image(rows: number[][][]): RgbaImage {
  const height = rows.length;
  const width = rows[0].length;
  const data = new Uint8ClampedArray(width * height * 4);
  rows.flat().forEach((p, i) => data.set([p[0], p[1], p[2], p[3] ?? 255], i * 4));
  return { data, width, height };
}

const raw = (json: PreprocessJson = {}) => validatePreprocess({ scale: 1, ...json });
const twoPixels = image([
  [
    [10, 20, 30],
    [40, 50, 60],
  ],
]);

describe('a batch fixed above 1', () => {
  it('puts the image in every slot of the batch (float32 and uint8), so a model exported with batch 2 runs on images', () => {
    const t = imageToTensor(twoPixels, [2, 3, 1, 2], raw());
    expect(t.dims).toEqual([2, 3, 1, 2]);
    expect(Array.from(t.data)).toEqual([10, 40, 20, 50, 30, 60, 10, 40, 20, 50, 30, 60]);
    const u = imageToUint8Tensor(twoPixels, [3, 1, 2, 3], raw({ layout: 'NHWC', elementType: 'uint8' }));
    expect(u.dims).toEqual([3, 1, 2, 3]);
    expect(Array.from(u.data)).toEqual([10, 20, 30, 40, 50, 60, 10, 20, 30, 40, 50, 60, 10, 20, 30, 40, 50, 60]);
    expect(resolveImageInput([2, 3, 1, 2], raw()).batch).toBe(2);
  });
});

describe('channel order and layout', () => {
  it('NCHW RGB: planes R, G, B', () => {
    const t = imageToTensor(twoPixels, [1, 3, 1, 2], raw());
    expect(t.dims).toEqual([1, 3, 1, 2]);
    expect(Array.from(t.data)).toEqual([10, 40, 20, 50, 30, 60]);
  });

  it('NCHW BGR: planes B, G, R', () => {
    expect(Array.from(imageToTensor(twoPixels, [1, 3, 1, 2], raw({ channelOrder: 'BGR' })).data)).toEqual([
      30, 60, 20, 50, 10, 40,
    ]);
  });

  it('NHWC RGB and BGR: channels interleaved per pixel', () => {
    const t = imageToTensor(twoPixels, [1, 1, 2, 3], raw({ layout: 'NHWC' }));
    expect(t.dims).toEqual([1, 1, 2, 3]);
    expect(Array.from(t.data)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(
      Array.from(imageToTensor(twoPixels, [1, 1, 2, 3], raw({ layout: 'NHWC', channelOrder: 'BGR' })).data),
    ).toEqual([30, 20, 10, 60, 50, 40]);
  });

  it('a rank-3 input (no batch) gets a rank-3 tensor', () => {
    expect(imageToTensor(twoPixels, [3, 1, 2], raw()).dims).toEqual([3, 1, 2]);
    expect(imageToTensor(twoPixels, [1, 2, 3], raw({ layout: 'NHWC' })).dims).toEqual([1, 2, 3]);
  });

  it('drops alpha: a transparent pixel keeps its colour', () => {
    expect(Array.from(imageToTensor(image([[[1, 2, 3, 0]]]), [1, 3, 1, 1], raw()).data)).toEqual([1, 2, 3]);
  });
});

describe('normalisation (x · scale − mean) / std per channel', () => {
  it('applies scale, then per-channel mean and std, in output channel order', () => {
    const spec = raw({ scale: 0.5, mean: [1, 2, 3], std: [2, 4, 8] });
    // R 10 → (5 − 1) / 2, G 20 → (10 − 2) / 4, B 30 → (15 − 3) / 8
    expect(Array.from(imageToTensor(image([[[10, 20, 30]]]), [1, 3, 1, 1], spec).data)).toEqual([2, 2, 1.5]);
    // BGR: the first channel is B, normalised with the first mean and std.
    const bgr = raw({ channelOrder: 'BGR', scale: 0.5, mean: [1, 2, 3], std: [2, 4, 8] });
    expect(Array.from(imageToTensor(image([[[10, 20, 30]]]), [1, 3, 1, 1], bgr).data)).toEqual([7, 2, 0.25]); // B 30 → (15 − 1) / 2, G → 2, R 10 → (5 − 3) / 8
  });

  it('matches the float32 rounding of the formula computed in double precision', () => {
    const spec = getPreprocessPreset('imagenet');
    const t = imageToTensor(image([[[123, 45, 250]]]), [1, 3, 1, 1], spec);
    expect(t.data[0]).toBe(Math.fround((123 / 255 - 0.485) / 0.229));
    expect(t.data[1]).toBe(Math.fround((45 / 255 - 0.456) / 0.224));
    expect(t.data[2]).toBe(Math.fround((250 / 255 - 0.406) / 0.225));
  });

  it('ultraface: (x − 127) / 128', () => {
    const t = imageToTensor(image([[[255, 127, 0]]]), [1, 3, 1, 1], getPreprocessPreset('ultraface'));
    expect(Array.from(t.data)).toEqual([1, 0, -127 / 128]);
  });

  it('one mean and std for all channels; a wrong count is a named error', () => {
    expect(Array.from(imageToTensor(twoPixels, [1, 3, 1, 2], raw({ mean: [10], std: [10] })).data)).toEqual([
      0, 3, 1, 4, 2, 5,
    ]);
    expect(() => imageToTensor(twoPixels, [1, 1, 1, 2], raw({ mean: [1, 2, 3] }))).toThrow(
      /"mean" has 3 values .* 1 channel/,
    );
  });
});

describe('one-channel inputs: luma', () => {
  it("'gray' is Pillow's convert('L'): (19595 R + 38470 G + 7471 B + 32768) >> 16", () => {
    expect([grayLuma(255, 0, 0), grayLuma(0, 255, 0), grayLuma(0, 0, 255), grayLuma(255, 255, 255)]).toEqual([
      76, 150, 29, 255,
    ]);
    // A gray pixel keeps its level.
    for (let v = 0; v < 256; v++) expect(grayLuma(v, v, v)).toBe(v);
  });

  it("'Y' is the Y of Pillow's convert('YCbCr'): 6-bit tables, truncated", () => {
    // Pillow's tables at 11: Y_R 210, Y_G 413, Y_B 80; (210 + 413 + 80) >> 6 = 703 >> 6 = 10.
    expect(ycbcrY(11, 11, 11)).toBe(10);
    // Y_G[255] = 9580 → 149, where convert('L') gives 150.
    expect([ycbcrY(255, 0, 0), ycbcrY(0, 255, 0), ycbcrY(0, 0, 255), ycbcrY(255, 255, 255)]).toEqual([
      76, 149, 29, 255,
    ]);
    for (let v = 0; v < 256; v += 5)
      expect(
        Math.abs(ycbcrY(v, (3 * v) % 256, (7 * v) % 256) - grayLuma(v, (3 * v) % 256, (7 * v) % 256)),
      ).toBeLessThanOrEqual(1);
  });

  it('feeds luma, then normalisation, to a one-channel input', () => {
    const pixels = image([
      [
        [0, 255, 0],
        [11, 11, 11],
      ],
    ]);
    expect(Array.from(imageToTensor(pixels, [1, 1, 1, 2], raw({ colorSpace: 'gray' })).data)).toEqual([150, 11]);
    expect(Array.from(imageToTensor(pixels, [1, 1, 1, 2], raw({ colorSpace: 'Y' })).data)).toEqual([149, 10]);
    const y = imageToTensor(pixels, [1, 1, 1, 2], getPreprocessPreset('y-channel'));
    expect(Array.from(y.data)).toEqual([Math.fround(149 / 255), Math.fround(10 / 255)]);
  });

  it('a grayscale image (R = G = B) keeps its levels under gray', () => {
    const t = imageToTensor(
      image([
        [
          [7, 7, 7],
          [200, 200, 200],
        ],
      ]),
      [1, 1, 1, 2],
      raw(),
    );
    expect(Array.from(t.data)).toEqual([7, 200]);
  });
});

describe('resizing and padding inside the tensor', () => {
  it('pads with padValue before normalisation (yolo: 114 stays 114)', () => {
    // 2×1 into 2×2 letterboxed at the top-left: row 1 is padding.
    const t = imageToTensor(twoPixels, [1, 3, 2, 2], getPreprocessPreset('yolo'));
    expect(Array.from(t.data)).toEqual([30, 60, 114, 114, 20, 50, 114, 114, 10, 40, 114, 114]);
    const unit = imageToTensor(
      twoPixels,
      [1, 3, 2, 2],
      raw({ resize: 'letterbox', letterboxAlign: 'topLeft', padValue: 114, scale: 1 / 255 }),
    );
    expect(unit.data[2]).toBe(Math.fround(114 / 255));
  });

  it('pads one-channel inputs with the pad level', () => {
    const t = imageToTensor(
      image([
        [
          [9, 9, 9],
          [9, 9, 9],
        ],
      ]),
      [1, 1, 3, 2],
      raw({ resize: 'letterbox', padValue: 50 }),
    );
    expect(Array.from(t.data)).toEqual([50, 50, 9, 9, 50, 50]);
    // Under 'Y' a gray pixel of level 11 has Y 10 (Pillow), padding included.
    const y = imageToTensor(
      image([
        [
          [11, 11, 11],
          [11, 11, 11],
        ],
      ]),
      [1, 1, 3, 2],
      raw({ resize: 'letterbox', padValue: 11, colorSpace: 'Y' }),
    );
    expect(Array.from(y.data)).toEqual([10, 10, 10, 10, 10, 10]);
  });

  it('equals resizing to RGBA8 first, then converting (one pass, same bytes), for every mode', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) % 256;
    const src = { data: Uint8ClampedArray.from({ length: 13 * 7 * 4 }, next), width: 13, height: 7 };
    for (const resize of ['stretch', 'crop', 'letterbox'] as const) {
      for (const letterboxAlign of ['center', 'topLeft'] as const) {
        const spec = raw({ resize, letterboxAlign, padValue: 3, channelOrder: 'BGR', layout: 'NHWC' });
        const t = imageToTensor(src, [1, 5, 9, 3], spec);
        const ref = resizeRgba(src, 9, 5, { mode: resize, align: letterboxAlign, padValue: 3 });
        const expected: number[] = [];
        for (let i = 0; i < 45; i++) expected.push(ref.data[i * 4 + 2], ref.data[i * 4 + 1], ref.data[i * 4]);
        expect(Array.from(t.data)).toEqual(expected);
      }
    }
  });

  it('writes into a given buffer slice (one image of a batch)', () => {
    const batch = new Float32Array(12);
    imageToTensor(twoPixels, ['N', 3, 1, 2], raw(), { out: batch.subarray(6) });
    expect(Array.from(batch)).toEqual([0, 0, 0, 0, 0, 0, 10, 40, 20, 50, 30, 60]);
    expect(() => imageToTensor(twoPixels, [1, 3, 1, 2], raw(), { out: new Float32Array(5) })).toThrow(/5 elements/);
  });
});

describe('uint8 inputs', () => {
  it('gives raw bytes', () => {
    const t = imageToUint8Tensor(
      twoPixels,
      [1, 1, 2, 3],
      validatePreprocess({ elementType: 'uint8', scale: 1, layout: 'NHWC' }),
    );
    expect(t.data).toBeInstanceOf(Uint8Array);
    expect(Array.from(t.data)).toEqual([10, 20, 30, 40, 50, 60]);
  });

  it('each function refuses the other element type, naming the field', () => {
    expect(() =>
      imageToTensor(twoPixels, [1, 3, 1, 2], validatePreprocess({ elementType: 'uint8', scale: 1 })),
    ).toThrow(/"elementType"/);
    expect(() => imageToUint8Tensor(twoPixels, [1, 3, 1, 2], raw())).toThrow(/"elementType"/);
  });
});

describe('resolveImageInput', () => {
  it('takes symbolic dimensions from dims, and batch 1 when the batch is open', () => {
    const spec = raw({ dims: { height: 4, width: 6 } });
    expect(resolveImageInput(['batch', 3, 'height', 'width'], spec)).toMatchObject({
      batch: 1,
      channels: 3,
      height: 4,
      width: 6,
      dims: [1, 3, 4, 6],
    });
    expect(resolveImageInput(['N', 3, 'height', 'width'], raw({ dims: { N: 8, height: 4, width: 6 } }))).toMatchObject({
      batch: 8,
      dims: [1, 3, 4, 6],
    });
    expect(imageToTensor(twoPixels, ['batch', 3, 'height', 'width'], spec).dims).toEqual([1, 3, 4, 6]);
  });

  it('names the symbolic dimension that has no value', () => {
    expect(() => resolveImageInput(['batch', 3, 'height', 'width'], raw({ dims: { width: 6 } }), 'input')).toThrow(
      /Input 'input' has the symbolic height \(H in NCHW\) dimension "height".*\{"dims": \{"height": 320\}\}/,
    );
    expect(() => resolveImageInput([1, 3, '?', 5], raw())).toThrow(/height .* unknown/);
  });

  it('suggests NHWC when an NCHW reading gives an odd channel count', () => {
    expect(() => resolveImageInput([1, 224, 224, 3], raw(), 'x')).toThrow(/224 channels.*"layout": "NHWC"/);
  });

  it('refuses shapes that are not images', () => {
    expect(() => resolveImageInput([1, 10], raw(), 'x')).toThrow(/rank 2/);
    expect(() => resolveImageInput([1, 4, 8, 8], raw(), 'x')).toThrow(/4 channels/);
  });
});
