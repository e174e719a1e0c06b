/**
 * The EXIF orientation of a JPEG, and the pixels turned upright by it.
 *
 * Cameras store pixels as the sensor saw them and record the rotation in the EXIF Orientation tag
 * (0x0112). Browsers apply it when they decode (`createImageBitmap` defaults to 'from-image'), as
 * does `cv2.imread`; jpeg-js does not. Applying it here keeps the command line's tensors equal to
 * the page's. Reads only the TIFF header and the first IFD (EXIF 2.3 §4.6.2); anything unreadable
 * counts as "no orientation" (1), never as an error: a bad EXIF block must not lose a good photo.
 */
import type { RgbaImage } from '../../core/preprocess/resize.ts';

/** The Orientation value (1–8) in an EXIF block (the APP1 payload after "Exif"), or 1 when absent or unreadable. */
export function exifOrientation(exif: Uint8Array | undefined): number {
  if (!exif) return 1;
  // jpeg-js hands the payload after "Exif\0"; the second pad byte may still be there.
  let start = 0;
  while (start < 2 && exif[start] === 0) start++;
  if (exif.length < start + 8) return 1;
  const view = new DataView(exif.buffer, exif.byteOffset + start, exif.length - start);
  const order = view.getUint16(0);
  if (order !== 0x4949 && order !== 0x4d4d) return 1; // "II" little-endian, "MM" big-endian
  const little = order === 0x4949;
  if (view.getUint16(2, little) !== 42) return 1;
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > view.byteLength) return 1;
  const entries = view.getUint16(ifd, little);
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12;
    if (entry + 12 > view.byteLength) return 1;
    if (view.getUint16(entry, little) === 0x0112) {
      const value = view.getUint16(entry + 8, little); // SHORT, stored left-justified in the value field
      return value >= 1 && value <= 8 ? value : 1;
    }
  }
  return 1;
}

/**
 * The image as it should be displayed under EXIF orientation `orientation` (1–8): 2 mirror,
 * 3 rotate 180°, 4 flip vertically, 5 transpose, 6 rotate 90° clockwise, 7 transverse, 8 rotate
 * 90° counter-clockwise. Returns the input itself for 1.
 */
export function applyOrientation(image: RgbaImage, orientation: number): RgbaImage & { data: Uint8Array } {
  const { width: w, height: h } = image;
  if (orientation <= 1 || orientation > 8)
    return { data: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.length), width: w, height: h };
  const swap = orientation >= 5;
  const outW = swap ? h : w;
  const outH = swap ? w : h;
  const src = image.data;
  const out = new Uint8Array(w * h * 4);
  const src32 = new Uint32Array(src.buffer.slice(src.byteOffset, src.byteOffset + src.length));
  const out32 = new Uint32Array(out.buffer);
  for (let y = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++) {
      // (sx, sy): the stored pixel that shows at display position (x, y).
      let sx: number;
      let sy: number;
      switch (orientation) {
        case 2:
          sx = w - 1 - x;
          sy = y;
          break;
        case 3:
          sx = w - 1 - x;
          sy = h - 1 - y;
          break;
        case 4:
          sx = x;
          sy = h - 1 - y;
          break;
        case 5:
          sx = y;
          sy = x;
          break;
        case 6:
          sx = y;
          sy = h - 1 - x;
          break;
        case 7:
          sx = w - 1 - y;
          sy = h - 1 - x;
          break;
        default:
          sx = w - 1 - y;
          sy = x;
          break; // 8
      }
      out32[y * outW + x] = src32[sy * w + sx];
    }
  }
  return { data: out, width: outW, height: outH };
}
