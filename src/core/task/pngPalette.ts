/**
 * Indexed-colour (palette) PNG masks, as Pascal VOC and most labelling tools save them: the class of a pixel is its
 * palette index, which a decoder hands back only as the palette's colour. This reads the palette from the file's
 * own chunks (IHDR colour type 3, PLTE) and maps each decoded colour back to its index. A colour the palette does not
 * have, or a colour two used indices share, is a TaskLabelError: a mask is never guessed.
 */
import { TaskLabelError } from './errors.ts';

const SIGNATURE = [137, 80, 78, 71, 13, 10, 26, 10];

/** The palette (r, g, b per entry) of an indexed-colour PNG; null for any other PNG (grayscale, RGB…) or not a PNG. */
export function pngPalette(bytes: Uint8Array): Uint8Array | null {
  if (bytes.length < 33 || SIGNATURE.some((v, i) => bytes[i] !== v)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let colourType = -1;
  for (let at = 8; at + 8 <= bytes.length;) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') colourType = body[9];
    if (type === 'PLTE') return colourType === 3 ? body.slice() : null;
    if (type === 'IDAT' || type === 'IEND') return null;
    at += 12 + length;
  }
  return null;
}

/** Each pixel's palette index from its decoded RGBA colour. */
export function paletteIndices(
  where: string,
  rgba: { data: ArrayLike<number>; width: number; height: number },
  palette: Uint8Array,
): Uint8Array {
  const byColour = new Map<number, number>();
  const shared = new Map<number, number[]>();
  for (let i = 0; i * 3 + 2 < palette.length; i++) {
    const c = (palette[i * 3] << 16) | (palette[i * 3 + 1] << 8) | palette[i * 3 + 2];
    if (byColour.has(c)) shared.set(c, [...(shared.get(c) ?? [byColour.get(c)!]), i]);
    else byColour.set(c, i);
  }
  const out = new Uint8Array(rgba.width * rgba.height);
  for (let k = 0; k < out.length; k++) {
    const c = (rgba.data[k * 4] << 16) | (rgba.data[k * 4 + 1] << 8) | rgba.data[k * 4 + 2];
    const index = byColour.get(c);
    if (index === undefined)
      throw new TaskLabelError(
        `${where}: pixel ${k % rgba.width},${Math.floor(k / rgba.width)} has a colour its palette does not hold`,
      );
    if (shared.has(c))
      throw new TaskLabelError(
        `${where}: palette entries ${shared.get(c)!.join(' and ')} have the same colour, so the class of a pixel of that colour is unknown`,
      );
    out[k] = index;
  }
  return out;
}
