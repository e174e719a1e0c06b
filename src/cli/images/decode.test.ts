import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import jpeg from 'jpeg-js';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeImageBytes, decodeImageFile } from './decode.ts';
import { ImageDecodeError } from './errors.ts';
import { listImageFiles } from './listImages.ts';

const IMAGES = path.resolve(import.meta.dirname, '../../../../shared/fixtures/images');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-decode-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A PNG from its IHDR fields and raw scanlines (filter byte 0 on each row), with optional extra chunks. */
function png(
  width: number,
  height: number,
  bitDepth: number,
  colorType: number,
  rows: Uint8Array[],
  extra: [string, Uint8Array][] = [],
): Uint8Array {
  const chunk = (type: string, data: Uint8Array) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    out.set(data, 8);
    out.writeUInt32BE(zlib.crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([bitDepth, colorType, 0, 0, 0], 8);
  const scanlines = Buffer.concat(rows.map((r) => Buffer.concat([Buffer.from([0]), r])));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    ...extra.map(([type, data]) => chunk(type, data)),
    chunk('IDAT', zlib.deflateSync(scanlines)),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

function isGray(data: Uint8Array): boolean {
  for (let i = 0; i < data.length; i += 4) if (data[i] !== data[i + 1] || data[i] !== data[i + 2]) return false;
  return true;
}

function pixel(image: { data: Uint8Array; width: number }, x: number, y: number): number[] {
  const o = (y * image.width + x) * 4;
  return Array.from(image.data.subarray(o, o + 4));
}

describe('decodeImageFile on the fixture photos', () => {
  const files = [
    ...listImageFiles(path.join(IMAGES, 'photos')).files,
    ...listImageFiles(path.join(IMAGES, 'coco')).files,
  ];

  it('finds all 13 photos and 24 COCO images', () => {
    expect(files.length).toBe(37);
  });

  it.each(files.map((f) => [path.basename(f), f]))('decodes %s to RGBA of a sane size', (_, file) => {
    const image = decodeImageFile(file);
    expect(image.width).toBeGreaterThanOrEqual(300);
    expect(image.width).toBeLessThanOrEqual(1024);
    expect(image.height).toBeGreaterThanOrEqual(200);
    expect(image.height).toBeLessThanOrEqual(768);
    expect(image.data).toBeInstanceOf(Uint8Array);
    expect(image.data.length).toBe(image.width * image.height * 4);
    expect(image.data[3]).toBe(255);
  });

  it('knows the sizes of a few', () => {
    const size = (f: string) => {
      const { width, height } = decodeImageFile(path.join(IMAGES, f));
      return [width, height];
    };
    expect(size('photos/yolox_dog.jpg')).toEqual([768, 576]);
    expect(size('photos/astronaut.png')).toEqual([512, 512]);
    expect(size('photos/grace_hopper.jpg')).toEqual([512, 600]);
    expect(size('coco/000000007888.jpg')).toEqual([638, 640]);
  });

  it('turns the grayscale PNG (camera.png) and grayscale JPEG (000000007888.jpg) into RGBA with R = G = B', () => {
    for (const f of ['photos/camera.png', 'coco/000000007888.jpg']) {
      const image = decodeImageFile(path.join(IMAGES, f));
      expect(isGray(image.data), f).toBe(true);
      expect(
        image.data.every((v, i) => i % 4 !== 3 || v === 255),
        f,
      ).toBe(true);
    }
    expect(isGray(decodeImageFile(path.join(IMAGES, 'photos/astronaut.png')).data)).toBe(false);
  });
});

describe('PNG colour types', () => {
  it('expands palette PNGs, with tRNS transparency in alpha', () => {
    const plte = new Uint8Array([255, 0, 0, 0, 255, 0, 0, 0, 255]);
    const trns = new Uint8Array([255, 128]);
    const image = decodeImageBytes(
      png(
        3,
        1,
        8,
        3,
        [new Uint8Array([0, 1, 2])],
        [
          ['PLTE', plte],
          ['tRNS', trns],
        ],
      ),
      'p.png',
    );
    expect([pixel(image, 0, 0), pixel(image, 1, 0), pixel(image, 2, 0)]).toEqual([
      [255, 0, 0, 255],
      [0, 255, 0, 128],
      [0, 0, 255, 255],
    ]);
  });

  it('scales 16-bit grayscale to 8 bits, rounded (v · 255 / 65535)', () => {
    const row = Buffer.alloc(6);
    [0, 0x8080, 0xffff].forEach((v, i) => row.writeUInt16BE(v, 2 * i));
    const image = decodeImageBytes(png(3, 1, 16, 0, [row]), 'g16.png');
    expect([pixel(image, 0, 0), pixel(image, 1, 0), pixel(image, 2, 0)]).toEqual([
      [0, 0, 0, 255],
      [128, 128, 128, 255],
      [255, 255, 255, 255],
    ]);
  });

  it('scales 16-bit RGBA to 8 bits', () => {
    const row = Buffer.alloc(8);
    [0xffff, 0x0101, 0x7fff, 0xffff].forEach((v, i) => row.writeUInt16BE(v, 2 * i));
    expect(pixel(decodeImageBytes(png(1, 1, 16, 6, [row]), 'c16.png'), 0, 0)).toEqual([255, 1, 127, 255]);
  });

  it('expands gray + alpha and 1-bit grayscale', () => {
    expect(pixel(decodeImageBytes(png(1, 1, 8, 4, [new Uint8Array([77, 9])]), 'ga.png'), 0, 0)).toEqual([
      77, 77, 77, 9,
    ]);
    const bits = decodeImageBytes(png(3, 1, 1, 0, [new Uint8Array([0b10100000])]), 'b.png');
    expect([pixel(bits, 0, 0), pixel(bits, 1, 0), pixel(bits, 2, 0)]).toEqual([
      [255, 255, 255, 255],
      [0, 0, 0, 255],
      [255, 255, 255, 255],
    ]);
  });
});

describe('JPEG', () => {
  it('turns a JPEG upright by its EXIF orientation (6: rotate 90° clockwise)', () => {
    // 16×8, left half white, right half black; stored rotated, displayed 8×16 with white on top.
    const data = new Uint8Array(16 * 8 * 4);
    for (let y = 0; y < 8; y++)
      for (let x = 0; x < 16; x++) data.set(x < 8 ? [255, 255, 255, 255] : [0, 0, 0, 255], (y * 16 + x) * 4);
    const tiff = new Uint8Array([
      0x4d, 0x4d, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0,
    ]);
    const exifBuffer = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
    const encoded = jpeg.encode(
      { data, width: 16, height: 8, exifBuffer } as Parameters<typeof jpeg.encode>[0],
      95,
    ).data;
    const image = decodeImageBytes(encoded, 'rotated.jpg');
    expect([image.width, image.height]).toEqual([8, 16]);
    expect(pixel(image, 4, 2)[0]).toBeGreaterThan(240);
    expect(pixel(image, 4, 13)[0]).toBeLessThan(15);
  });
});

describe('files that are not images', () => {
  const write = (name: string, bytes: Uint8Array) => {
    const file = path.join(tmp, name);
    fs.writeFileSync(file, bytes);
    return file;
  };
  const astronaut = fs.readFileSync(path.join(IMAGES, 'photos/astronaut.png'));
  const dog = fs.readFileSync(path.join(IMAGES, 'photos/yolox_dog.jpg'));

  function decodeError(file: string): Error {
    try {
      decodeImageFile(file);
    } catch (e) {
      return e as Error;
    }
    throw new Error(`${file} decoded`);
  }

  it.each([
    ['truncated.png', () => astronaut.subarray(0, 5000), /PNG is corrupt/],
    [
      'bad-crc.png',
      () => {
        const b = Buffer.from(astronaut);
        b.fill(0, 100000, 100100);
        return b;
      },
      /PNG is corrupt/,
    ],
    ['garbage.jpg', () => new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5, 6, 7, 8, 9]), /JPEG is corrupt/],
    ['header-only.jpg', () => dog.subarray(0, 600), /JPEG/],
    [
      'text.png',
      () => new TextEncoder().encode('hello, not an image'),
      /not a JPEG or PNG image \(it starts with bytes 68 65 6c 6c\)/,
    ],
    ['anim.gif', () => new TextEncoder().encode('GIF89a......'), /is a GIF image; only JPEG and PNG/],
    ['empty.jpg', () => new Uint8Array(0), /is empty/],
  ])('%s throws ImageDecodeError naming the file', (name, bytes, message) => {
    const file = write(name, bytes());
    const e = decodeError(file);
    expect(e).toBeInstanceOf(ImageDecodeError);
    expect(e.name).toBe('ImageDecodeError');
    expect(e.message).toContain(file);
    expect(e.message).toMatch(message);
  });

  it('a missing file is an ImageDecodeError too', () => {
    const e = decodeError(path.join(tmp, 'missing.png'));
    expect(e.name).toBe('ImageDecodeError');
    expect(e.message).toMatch(/missing\.png cannot be read \(ENOENT\)/);
  });
});
