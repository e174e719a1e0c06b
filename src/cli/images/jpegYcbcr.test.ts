import path from 'node:path';
import fs from 'node:fs';
import jpeg from 'jpeg-js';
import { describe, expect, it } from 'vitest';
import { decodeImageBytes } from './decode.ts';
import { jpegColourModel } from './jpegYcbcr.ts';

const COCO = path.resolve(import.meta.dirname, '../../../../shared/fixtures/images/coco');

/** A smooth RGB gradient (no flat areas: every value is reached), encoded by jpeg-js at the highest quality. */
function gradientJpeg(): { rgba: Uint8Array; bytes: Uint8Array } {
  const width = 96,
    height = 64;
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const i = 4 * (y * width + x);
      rgba.set([(x * 255) / (width - 1), (y * 255) / (height - 1), ((x + y) * 255) / (width + height - 2), 255], i);
    }
  const bytes = new Uint8Array(jpeg.encode({ data: rgba, width, height }, 100).data);
  return { rgba, bytes };
}

/** The same JPEG with an Adobe APP14 segment after SOI whose transform flag is `flag` (1: YCbCr). */
function withAdobe(bytes: Uint8Array, flag: number): Uint8Array {
  const segment = [0xff, 0xee, 0x00, 0x0e, ...Buffer.from('Adobe'), 0x00, 0x64, 0x00, 0x00, 0x00, 0x00, flag];
  return Uint8Array.from([...bytes.subarray(0, 2), ...segment, ...bytes.subarray(2)]);
}

const signedMeanError = (got: Uint8Array, want: Uint8Array) => {
  let sum = 0,
    n = 0;
  for (let i = 0; i < got.length; i++) {
    if (i % 4 === 3) continue;
    sum += got[i] - want[i];
    n++;
  }
  return sum / n;
};

describe('JPEG colours converted as libjpeg converts them', () => {
  it('reads the headers: three YCbCr components, and where an Adobe segment keeps its transform flag', () => {
    const { bytes } = gradientJpeg();
    expect(jpegColourModel(bytes)).toEqual({ ycbcr: true, adobeTransformAt: -1 });
    const adobe = withAdobe(bytes, 1);
    const model = jpegColourModel(adobe);
    expect(model.ycbcr).toBe(true);
    expect(adobe[model.adobeTransformAt]).toBe(1);
    // An Adobe flag of 0 means the components are RGB: nothing to convert.
    expect(jpegColourModel(withAdobe(bytes, 0)).ycbcr).toBe(false);
    // A real photo: JFIF, an ICC profile (whose text names Adobe: not an APP14 segment), three components.
    const photo = new Uint8Array(fs.readFileSync(path.join(COCO, '000000000785.jpg')));
    expect(jpegColourModel(photo)).toEqual({ ycbcr: true, adobeTransformAt: -1 });
  });

  it('decodes without the truncation bias (jpeg-js alone reads about half a level low), Adobe-flagged or not', () => {
    const { rgba, bytes } = gradientJpeg();
    const ours = decodeImageBytes(bytes, 'g.jpg').data;
    const theirs = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true }).data;
    expect(signedMeanError(theirs, rgba)).toBeLessThan(-0.3);
    expect(Math.abs(signedMeanError(ours, rgba))).toBeLessThan(0.15);
    // The Adobe flag makes jpeg-js transform whatever it is asked: the copy it reads has the flag cleared, so the
    // colours are converted once, the same as without the segment.
    expect(decodeImageBytes(withAdobe(bytes, 1), 'a.jpg').data).toEqual(ours);
  });
});
