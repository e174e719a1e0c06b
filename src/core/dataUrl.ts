/**
 * Bytes as a data URL (base64), for pictures embedded in the page and the self-contained report: a drawn mask, a
 * task's photo. Built in slices, since a spread of a whole image overflows the call stack.
 */

/** `bytes` as a `data:<mime>;base64,…` URL. */
export function dataUrl(bytes: Uint8Array, mime: string): string {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${mime};base64,${btoa(text)}`;
}
