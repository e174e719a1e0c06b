/**
 * Image files → RGBA pixels inside a worker: `createImageBitmap` decodes off the main thread, an
 * OffscreenCanvas reads the pixels back. No colour-space conversion and no premultiplication, so the
 * bytes are the file's own (as Node's PNG decoder gives them). Grayscale and palette files come back as
 * RGBA with R = G = B; the preprocessing core drops alpha.
 */
import type { RgbaImage } from '../../src/core/preprocess/resize.ts';

export async function decodeWithCanvas(file: Blob): Promise<RgbaImage> {
  const bitmap = await createImageBitmap(file, { colorSpaceConversion: 'none', premultiplyAlpha: 'none' });
  try {
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext('2d', { willReadFrequently: true, colorSpace: 'srgb' });
    if (!context) throw new Error('no 2D canvas in this worker');
    context.drawImage(bitmap, 0, 0);
    const { data } = context.getImageData(0, 0, bitmap.width, bitmap.height);
    return { data, width: bitmap.width, height: bitmap.height };
  } finally {
    bitmap.close();
  }
}
