import { describe, expect, it } from 'vitest';
import { applyOrientation, exifOrientation } from './exifOrientation.ts';

/** An EXIF payload (after "Exif\0") with one IFD entry: Orientation = value. */
function exif(value: number, little: boolean, leadingPad = true): Uint8Array {
  const tiff = new Uint8Array(26);
  const v = new DataView(tiff.buffer);
  v.setUint16(0, little ? 0x4949 : 0x4d4d);
  v.setUint16(2, 42, little);
  v.setUint32(4, 8, little);
  v.setUint16(8, 1, little);
  v.setUint16(10, 0x0112, little);
  v.setUint16(12, 3, little);
  v.setUint32(14, 1, little);
  v.setUint16(18, value, little);
  return leadingPad ? new Uint8Array([0, ...tiff]) : tiff;
}

describe('exifOrientation', () => {
  it('reads the tag in both byte orders, with or without the pad byte', () => {
    expect(exifOrientation(exif(6, true))).toBe(6);
    expect(exifOrientation(exif(8, false))).toBe(8);
    expect(exifOrientation(exif(3, false, false))).toBe(3);
  });

  it('is 1 when absent, out of range or unreadable', () => {
    expect(exifOrientation(undefined)).toBe(1);
    expect(exifOrientation(exif(9, true))).toBe(1);
    expect(exifOrientation(new Uint8Array([1, 2, 3]))).toBe(1);
    expect(exifOrientation(exif(6, true).subarray(0, 16))).toBe(1);
  });
});

describe('applyOrientation', () => {
  // Stored 3×2 image, pixels numbered (R channel):  1 2 3 / 4 5 6
  const stored = { data: new Uint8Array([1, 2, 3, 4, 5, 6].flatMap((v) => [v, 0, 0, 255])), width: 3, height: 2 };
  const shown = (o: number) => {
    const out = applyOrientation(stored, o);
    const rows: number[][] = [];
    for (let y = 0; y < out.height; y++)
      rows.push(Array.from({ length: out.width }, (_, x) => out.data[(y * out.width + x) * 4]));
    return rows;
  };

  it.each([
    [
      1,
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
    ],
    [
      2,
      [
        [3, 2, 1],
        [6, 5, 4],
      ],
    ], // mirrored
    [
      3,
      [
        [6, 5, 4],
        [3, 2, 1],
      ],
    ], // rotated 180°
    [
      4,
      [
        [4, 5, 6],
        [1, 2, 3],
      ],
    ], // flipped vertically
    [
      5,
      [
        [1, 4],
        [2, 5],
        [3, 6],
      ],
    ], // transposed
    [
      6,
      [
        [4, 1],
        [5, 2],
        [6, 3],
      ],
    ], // rotated 90° clockwise
    [
      7,
      [
        [6, 3],
        [5, 2],
        [4, 1],
      ],
    ], // transverse
    [
      8,
      [
        [3, 6],
        [2, 5],
        [1, 4],
      ],
    ], // rotated 90° counter-clockwise
  ])('orientation %i', (o, expected) => {
    expect(shown(o)).toEqual(expected);
  });
});
