import { describe, expect, it } from 'vitest';
import { dataUrl } from './dataUrl.ts';
import { maskDataUrl } from './task/maskImage.ts';

describe('dataUrl', () => {
  it('encodes bytes longer than one slice (0x8000) exactly, with the mime type given', () => {
    const bytes = Uint8Array.from({ length: 0x8000 * 2 + 7 }, (_, i) => (i * 31 + (i >> 8)) & 0xff);
    const url = dataUrl(bytes, 'image/png');
    expect(url.startsWith('data:image/png;base64,')).toBe(true);
    expect(new Uint8Array(Buffer.from(url.slice('data:image/png;base64,'.length), 'base64'))).toEqual(bytes);
  });

  it("draws a class map as a BMP whose pixels are the classes' colours (background transparent)", () => {
    const url = maskDataUrl([0, 1, 1, 0], 2, 2);
    expect(url.startsWith('data:image/bmp;base64,')).toBe(true);
    const bmp = Buffer.from(url.slice('data:image/bmp;base64,'.length), 'base64');
    expect(bmp.subarray(0, 2).toString('latin1')).toBe('BM');
    expect(bmp.readUInt32LE(2)).toBe(bmp.length);
  });
});
