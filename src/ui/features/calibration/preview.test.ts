import { describe, expect, it } from 'vitest';
import { getPreprocessPreset } from '../../../core/preprocess/presets.ts';
import { imageToTensor } from '../../../core/preprocess/toTensor.ts';
import { tensorToRgba } from './preview.ts';
import { formatNumber, parseNumber } from './SpecFields.tsx';

/** A w×h RGBA image with distinct channel values. */
function image(w: number, h: number) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let p = 0; p < w * h; p++) data.set([(p * 3) % 256, (p * 7 + 50) % 256, (p * 11 + 100) % 256, 255], p * 4);
  return { data, width: w, height: h };
}

describe('preview', () => {
  it.each(['yolo', 'imagenet', 'ultraface', 'unit', 'bgr-255'] as const)(
    'turns a %s tensor back into the pixels it came from',
    (preset) => {
      const spec = { ...getPreprocessPreset(preset), resize: 'stretch' as const };
      const src = image(6, 4);
      const t = imageToTensor(src, [1, 3, 4, 6], spec);
      const back = tensorToRgba(t.data, t.dims, spec);
      expect([back.width, back.height]).toEqual([6, 4]);
      for (let i = 0; i < src.data.length; i++) expect(Math.abs(back.data[i] - src.data[i])).toBeLessThanOrEqual(1);
    },
  );

  it('reads NHWC and one-channel tensors', () => {
    const spec = { ...getPreprocessPreset('unit'), layout: 'NHWC' as const };
    const gray = tensorToRgba(new Float32Array([0, 0.5, 1]), [1, 1, 3, 1], spec);
    expect(Array.from(gray.data)).toEqual([0, 0, 0, 255, 128, 128, 128, 255, 255, 255, 255, 255]);
  });
});

describe('number fields', () => {
  it.each([
    ['1/255', 1 / 255],
    ['0.5', 0.5],
    [' 127.5 ', 127.5],
    ['1e-3', 0.001],
    ['', NaN],
    ['abc', NaN],
  ])('parses %j', (text, value) => {
    expect(parseNumber(text)).toBe(value);
  });

  it('writes 1/255 as a fraction and other numbers briefly', () => {
    expect(formatNumber(1 / 255)).toBe('1/255');
    expect(formatNumber(1)).toBe('1');
    expect(formatNumber(0.229)).toBe('0.229');
    expect(parseNumber(formatNumber(1 / 255))).toBe(1 / 255);
  });
});
