/**
 * Image files to RGBA pixels in Node, with the pure-JS decoders jpeg-js and pngjs.
 *
 * The command line and the Node tests calibrate on folders of photos; the page decodes with the
 * browser instead. Whatever the file holds, the result is what a browser's canvas gives: 8-bit RGBA,
 * rows top to bottom, turned upright by the JPEG's EXIF orientation. Grayscale JPEGs and PNGs come
 * out with R = G = B, palette PNGs expanded, 16-bit PNGs scaled to 8 bits (pngjs: round(v · 255 /
 * 65535)), transparency kept in alpha (preprocessing drops it). The format is recognised by its
 * first bytes, not its extension. Every failure is an `ImageDecodeError` naming the file, so a
 * calibration run can skip it and say why.
 *
 * Note: jpeg-js's YCbCr → RGB truncation (a bias of about −0.4 level) is replaced by libjpeg's rounding
 * (jpegYcbcr.ts). Its inverse DCT and, where chroma is subsampled, its upsampling by repetition still differ
 * from libjpeg's (Pillow, OpenCV, browsers) by a level here and there, so tensors from JPEGs match the page's
 * closely, not bit for bit.
 */
import fs from 'node:fs';
import jpeg from 'jpeg-js';
import pngjs from 'pngjs';
import type { RgbaImage } from '../../core/preprocess/resize.ts';
import { ImageDecodeError } from './errors.ts';
import { applyOrientation, exifOrientation } from './exifOrientation.ts';
import { jpegColourModel, rawYcbcrBytes, ycbcrToRgbInPlace } from './jpegYcbcr.ts';

/** Decoded pixels: RGBA, 4 bytes a pixel. */
export type DecodedImage = RgbaImage & { data: Uint8Array };

/** Largest image decoded, in megapixels (jpeg-js's own default; a guard against decompression bombs). */
const MAX_MEGAPIXELS = 100;

function startsWith(bytes: Uint8Array, signature: readonly number[]): boolean {
  return bytes.length >= signature.length && signature.every((b, i) => bytes[i] === b);
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];
/** Formats recognised only to say what they are. */
const OTHER_FORMATS: { name: string; test: (b: Uint8Array) => boolean }[] = [
  { name: 'GIF', test: (b) => startsWith(b, [0x47, 0x49, 0x46, 0x38]) },
  {
    name: 'WebP',
    test: (b) => startsWith(b, [0x52, 0x49, 0x46, 0x46]) && String.fromCharCode(...b.subarray(8, 12)) === 'WEBP',
  },
  { name: 'BMP', test: (b) => startsWith(b, [0x42, 0x4d]) },
  { name: 'TIFF', test: (b) => startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a]) },
];

function reason(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.replace(/\s+/g, ' ').trim() || 'unknown error';
}

function decodePng(bytes: Uint8Array, fileName: string): DecodedImage {
  let png;
  try {
    png = pngjs.PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch (e) {
    throw new ImageDecodeError(`${fileName}: the PNG is corrupt or unsupported (${reason(e)}).`);
  }
  const { width, height, data } = png;
  if (data.length !== width * height * 4) {
    throw new ImageDecodeError(
      `${fileName}: the PNG decoded to ${data.length} bytes, not ${width}×${height} RGBA pixels.`,
    );
  }
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width, height };
}

function decodeJpeg(bytes: Uint8Array, fileName: string): DecodedImage {
  // Three YCbCr components are converted here, rounded as libjpeg rounds (jpegYcbcr.ts); others as jpeg-js reads them.
  const colours = jpegColourModel(bytes);
  let decoded;
  try {
    decoded = jpeg.decode(colours.ycbcr ? rawYcbcrBytes(bytes, colours) : bytes, {
      useTArray: true,
      formatAsRGBA: true,
      maxResolutionInMP: MAX_MEGAPIXELS,
      ...(colours.ycbcr ? { colorTransform: false } : {}),
    });
  } catch (e) {
    throw new ImageDecodeError(`${fileName}: the JPEG is corrupt or unsupported (${reason(e)}).`);
  }
  const { width, height, data } = decoded;
  if (!(width > 0 && height > 0) || data.length !== width * height * 4) {
    throw new ImageDecodeError(`${fileName}: the JPEG has no readable image data.`);
  }
  if (colours.ycbcr) ycbcrToRgbInPlace(data);
  const exif = (decoded as { exifBuffer?: Uint8Array }).exifBuffer;
  return applyOrientation({ data, width, height }, exifOrientation(exif));
}

/** The RGBA pixels of a JPEG or PNG file's bytes; `fileName` names it in errors. */
export function decodeImageBytes(bytes: Uint8Array, fileName: string): DecodedImage {
  if (bytes.length === 0) throw new ImageDecodeError(`${fileName} is empty.`);
  if (startsWith(bytes, PNG_SIGNATURE)) return decodePng(bytes, fileName);
  if (startsWith(bytes, JPEG_SIGNATURE)) return decodeJpeg(bytes, fileName);
  const other = OTHER_FORMATS.find((f) => f.test(bytes));
  throw new ImageDecodeError(
    other
      ? `${fileName} is a ${other.name} image; only JPEG and PNG are read. Convert it to PNG.`
      : `${fileName} is not a JPEG or PNG image (it starts with bytes ${[...bytes.subarray(0, 4)].map((b) => b.toString(16).padStart(2, '0')).join(' ')}).`,
  );
}

/** The RGBA pixels of a JPEG or PNG file. Throws ImageDecodeError naming the file. */
export function decodeImageFile(filePath: string): DecodedImage {
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(filePath);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new ImageDecodeError(`${filePath} cannot be read${code ? ` (${code})` : ''}.`);
  }
  return decodeImageBytes(bytes, filePath);
}
