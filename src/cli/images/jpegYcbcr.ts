/**
 * A JPEG's YCbCr → RGB conversion rounded as libjpeg rounds it (the decoder of browsers, Pillow and OpenCV).
 *
 * jpeg-js converts with floats and stores them into bytes, which truncates: its pixels sat 0.36–0.38 level below
 * Chromium's on average on six COCO photos (half of all values one lower), a bias in every tensor the command line
 * made from a JPEG against the page's and a Python pipeline's. So decode.ts asks jpeg-js for the raw YCbCr of a
 * three-component JPEG and converts here. What remains is jpeg-js's own inverse DCT: Chromium's pixels are
 * libjpeg-turbo's JDCT_ISLOW decode byte for byte on the 24 COCO fixtures, and jpeg-js's differ from those in about
 * 7 % of values by one even on grayscale files, where nothing is converted (0.07 level above them on average); on files with
 * subsampled chroma, jpeg-js's upsampling by repetition (libjpeg interpolates) adds ±1 at colour edges.
 *
 * jpeg-js applies the transform itself whenever an Adobe APP14 segment says so, whatever it is asked; `rawYcbcrBytes`
 * gives it a copy whose transform flag reads 0 so that it hands the planes over untouched.
 */

/** What the file's headers say about its colours: three YCbCr components, and where an Adobe transform flag sits. */
export interface JpegColourModel {
  /** Three components stored as YCbCr (JFIF, or an Adobe segment with a non-zero transform flag). */
  ycbcr: boolean;
  /** Byte offset of the Adobe segment's transform flag, -1 without one. */
  adobeTransformAt: number;
}

/** Reads the markers before the first scan. Unreadable headers give `ycbcr: false` (jpeg-js is then left as it is). */
export function jpegColourModel(bytes: Uint8Array): JpegColourModel {
  let components = 0;
  let adobeTransformAt = -1;
  let pos = 2; // after SOI
  while (pos + 4 <= bytes.length) {
    if (bytes[pos] !== 0xff) break;
    const marker = bytes[pos + 1];
    if (marker === 0xff) {
      pos++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      pos += 2; // no length
      continue;
    }
    if (marker === 0xda || marker === 0xd9) break; // start of scan, end of image
    const length = (bytes[pos + 2] << 8) | bytes[pos + 3];
    const data = pos + 4;
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof && data + 5 < bytes.length) components = bytes[data + 5];
    if (
      marker === 0xee &&
      length >= 14 &&
      data + 11 < bytes.length &&
      String.fromCharCode(...bytes.subarray(data, data + 5)) === 'Adobe'
    )
      adobeTransformAt = data + 11;
    pos += 2 + length;
  }
  const adobeSaysRgb = adobeTransformAt >= 0 && bytes[adobeTransformAt] === 0;
  return { ycbcr: components === 3 && !adobeSaysRgb, adobeTransformAt };
}

/** The bytes jpeg-js should read to hand over raw YCbCr: a copy with the Adobe transform flag cleared, if there is one. */
export function rawYcbcrBytes(bytes: Uint8Array, model: JpegColourModel): Uint8Array {
  if (model.adobeTransformAt < 0 || bytes[model.adobeTransformAt] === 0) return bytes;
  const copy = bytes.slice();
  copy[model.adobeTransformAt] = 0;
  return copy;
}

const clampRound = (v: number) => (v <= 0 ? 0 : v >= 255 ? 255 : (v + 0.5) | 0);

/** RGBA pixels holding Y, Cb, Cr in their R, G, B bytes converted in place to RGB (ITU-R BT.601 as JFIF defines it). */
export function ycbcrToRgbInPlace(rgba: Uint8Array): void {
  for (let i = 0; i + 2 < rgba.length; i += 4) {
    const y = rgba[i],
      cb = rgba[i + 1] - 128,
      cr = rgba[i + 2] - 128;
    rgba[i] = clampRound(y + 1.402 * cr);
    rgba[i + 1] = clampRound(y - 0.344136 * cb - 0.714136 * cr);
    rgba[i + 2] = clampRound(y + 1.772 * cb);
  }
}
