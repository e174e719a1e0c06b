/**
 * A photo as the task pictures embed it (the page and the downloaded report alike): as given where it is small, else
 * re-encoded in the browser as a JPEG of at most PICTURE_SIDE pixels a side. The boxes and masks are drawn in the
 * image's own coordinates over the picture's full width and height, so a smaller photo changes nothing they show; a
 * report of eight phone photos would otherwise carry them at full size (1–2 MB each). Where the browser cannot
 * decode or re-encode (no createImageBitmap or OffscreenCanvas, as in Node), the photo is kept as given.
 */
import { dataUrl } from '../../src/core/dataUrl.ts';

/** The longest side of a re-encoded picture photo, in pixels (twice a panel's width on a wide screen). */
export const PICTURE_SIDE = 1024;
/** Photos of at most this many bytes are embedded as given. */
const SMALL_PHOTO_BYTES = 200_000;

export async function picturePhotoUrl(blob: Blob): Promise<string> {
  const given = async () => dataUrl(new Uint8Array(await blob.arrayBuffer()), blob.type || 'image/jpeg');
  if (
    blob.size <= SMALL_PHOTO_BYTES ||
    typeof createImageBitmap !== 'function' ||
    typeof OffscreenCanvas !== 'function'
  )
    return given();
  try {
    const bitmap = await createImageBitmap(blob);
    const scale = Math.min(1, PICTURE_SIDE / Math.max(bitmap.width, bitmap.height));
    const width = Math.max(1, Math.round(bitmap.width * scale));
    const height = Math.max(1, Math.round(bitmap.height * scale));
    const canvas = new OffscreenCanvas(width, height);
    const context = canvas.getContext('2d');
    if (!context) return given();
    context.drawImage(bitmap, 0, 0, width, height);
    bitmap.close();
    const jpeg = await canvas.convertToBlob({ type: 'image/jpeg', quality: 0.85 });
    return jpeg.size < blob.size ? dataUrl(new Uint8Array(await jpeg.arrayBuffer()), 'image/jpeg') : given();
  } catch {
    return given();
  }
}
