/**
 * A class map as a small picture to lay over a photo: one colour per class (class 0, the background,
 * transparent), encoded as a 32-bit BMP data URL, which every browser draws and which needs no
 * compression code. Used by the report and the evaluation screen for segmentation pictures.
 */
import { dataUrl } from '../dataUrl.ts';

const PALETTE: readonly [number, number, number][] = [
  [0, 0, 0],
  [230, 25, 75],
  [60, 180, 75],
  [255, 225, 25],
  [0, 130, 200],
  [245, 130, 48],
  [145, 30, 180],
  [70, 240, 240],
  [240, 50, 230],
  [210, 245, 60],
  [250, 190, 190],
  [0, 128, 128],
  [230, 190, 255],
  [170, 110, 40],
  [128, 0, 0],
  [128, 128, 0],
];

export function classColor(label: number): [number, number, number] {
  return [...PALETTE[((label % PALETTE.length) + PALETTE.length) % PALETTE.length]] as [number, number, number];
}

/** The map (row-major, `width` × `height` class indices) as a BMP data URL; alpha 0 on class 0, `alpha` elsewhere. */
export function maskDataUrl(classes: ArrayLike<number>, width: number, height: number, alpha = 140): string {
  const header = 14 + 108;
  const bytes = new Uint8Array(header + width * height * 4);
  const v = new DataView(bytes.buffer);
  bytes[0] = 0x42;
  bytes[1] = 0x4d;
  v.setUint32(2, bytes.length, true);
  v.setUint32(10, header, true);
  v.setUint32(14, 108, true); // BITMAPV4HEADER: has an alpha mask
  v.setInt32(18, width, true);
  v.setInt32(22, -height, true); // top-down rows
  v.setUint16(26, 1, true);
  v.setUint16(28, 32, true);
  v.setUint32(30, 3, true); // BI_BITFIELDS
  v.setUint32(34, width * height * 4, true);
  v.setUint32(54, 0x00ff0000, true);
  v.setUint32(58, 0x0000ff00, true);
  v.setUint32(62, 0x000000ff, true);
  v.setUint32(66, 0xff000000, true);
  v.setUint32(70, 0x73524742, true); // 'sRGB'
  for (let k = 0; k < width * height; k++) {
    const c = classes[k];
    const [r, g, b] = classColor(c);
    const o = header + k * 4;
    bytes[o] = b;
    bytes[o + 1] = g;
    bytes[o + 2] = r;
    bytes[o + 3] = c === 0 ? 0 : alpha;
  }
  return dataUrl(bytes, 'image/bmp');
}
