/**
 * Images checked as they are added: each one decoded by the browser (createImageBitmap) before it joins
 * the calibration or evaluation set, so a corrupt or truncated file is named at once, with its reason,
 * instead of after a calibration run that skipped it. Decoding runs a few files at a time.
 */
import type { DataRejection } from '../../store/index.ts';
import { displayName } from '../../store/samples.ts';

const AT_ONCE = 4;

export const UNREADABLE_IMAGE =
  'not a readable image: the browser could not decode it (corrupt, truncated or not really an image)';

/** Whether the browser can decode `file` as an image. */
async function decodes(file: File): Promise<boolean> {
  try {
    const bitmap = await createImageBitmap(file);
    bitmap.close();
    return true;
  } catch {
    return false;
  }
}

/** The files that decode, in their order, and the others named with why. */
export async function readableImages(files: readonly File[]): Promise<{ images: File[]; rejected: DataRejection[] }> {
  const ok = new Array<boolean>(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      ok[i] = await decodes(files[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, files.length) }, worker));
  return {
    images: files.filter((_, i) => ok[i]),
    rejected: files.filter((_, i) => !ok[i]).map((f) => ({ file: displayName(f), reason: UNREADABLE_IMAGE })),
  };
}
