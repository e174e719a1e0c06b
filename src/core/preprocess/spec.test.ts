import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PREPROCESS,
  formatPreprocess,
  parsePreprocess,
  PREPROCESS_FIELDS,
  validatePreprocess,
} from './spec.ts';
import { PreprocessError } from './errors.ts';

function errorOf(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a throw');
}

describe('validatePreprocess', () => {
  it('fills every field left out with the defaults (the unit preset)', () => {
    const filled = validatePreprocess({});
    expect(PREPROCESS_FIELDS.map((field) => [field, filled[field]])).toEqual([
      ['resize', 'stretch'],
      ['letterboxAlign', 'center'],
      ['padValue', 0],
      ['channelOrder', 'RGB'],
      ['colorSpace', 'gray'],
      ['scale', 1 / 255],
      ['mean', [0]],
      ['std', [1]],
      ['layout', 'NCHW'],
      ['dims', {}],
      ['elementType', 'float32'],
    ]);
    expect(Object.keys(filled)).toHaveLength(PREPROCESS_FIELDS.length);
  });

  it('keeps every field given', () => {
    const json = {
      resize: 'letterbox',
      letterboxAlign: 'topLeft',
      padValue: 114,
      channelOrder: 'BGR',
      colorSpace: 'Y',
      scale: 1,
      mean: [1, 2, 3],
      std: [4, 5, 6],
      layout: 'NHWC',
      dims: { height: 320, width: 320, batch: 1 },
      elementType: 'float32',
    };
    expect(validatePreprocess(json)).toEqual(json);
  });

  it('takes a bare number for mean and std as one value for all channels', () => {
    const spec = validatePreprocess({ mean: 127, std: 128 });
    expect(spec.mean).toEqual([127]);
    expect(spec.std).toEqual([128]);
  });

  it('does not share arrays or objects with the defaults or the input', () => {
    const input = { mean: [1, 2, 3], dims: { h: 2 } };
    const spec = validatePreprocess(input);
    spec.mean[0] = 9;
    spec.dims.h = 7;
    expect(input.mean[0]).toBe(1);
    expect(input.dims.h).toBe(2);
    validatePreprocess({}).mean.push(5);
    expect(DEFAULT_PREPROCESS.mean).toEqual([0]);
  });

  it.each([
    ['resize', { resize: 'fit' }],
    ['letterboxAlign', { letterboxAlign: 'bottom' }],
    ['padValue', { padValue: 256 }],
    ['padValue', { padValue: 1.5 }],
    ['padValue', { padValue: '114' }],
    ['channelOrder', { channelOrder: 'rgb' }],
    ['colorSpace', { colorSpace: 'YCbCr' }],
    ['scale', { scale: 0 }],
    ['scale', { scale: 'x' }],
    ['scale', { scale: Number.NaN }],
    ['mean', { mean: [] }],
    ['mean', { mean: [1, 2, 3, 4, 5] }],
    ['mean', { mean: ['0'] }],
    ['std', { std: [1, 0, 1] }],
    ['layout', { layout: 'CHW' }],
    ['dims', { dims: [320] }],
    ['dims', { dims: { height: 0 } }],
    ['dims', { dims: { height: 'auto' } }],
    ['elementType', { elementType: 'int8' }],
  ])('names the bad field %s in a PreprocessError', (field, json) => {
    const e = errorOf(() => validatePreprocess(json));
    expect(e).toBeInstanceOf(PreprocessError);
    expect(e.name).toBe('PreprocessError');
    expect(e.message).toContain(`"${field}"`);
  });

  it('refuses unknown fields, naming them (a typo must not be silently ignored)', () => {
    const e = errorOf(() => validatePreprocess({ chanelOrder: 'BGR' }));
    expect(e.name).toBe('PreprocessError');
    expect(e.message).toContain('"chanelOrder"');
  });

  it.each([null, [], 'yolo', 3])('refuses %j as a spec', (json) => {
    expect(errorOf(() => validatePreprocess(json)).name).toBe('PreprocessError');
  });

  it('a uint8 spec passes raw bytes: scale 1, mean 0, std 1, or a named error', () => {
    expect(validatePreprocess({ elementType: 'uint8', scale: 1 }).elementType).toBe('uint8');
    expect(errorOf(() => validatePreprocess({ elementType: 'uint8' })).message).toContain('"scale"');
    expect(errorOf(() => validatePreprocess({ elementType: 'uint8', scale: 1, mean: [127] })).message).toContain(
      '"mean"',
    );
    expect(errorOf(() => validatePreprocess({ elementType: 'uint8', scale: 1, std: [2] })).message).toContain('"std"');
  });
});

describe('parsePreprocess and formatPreprocess', () => {
  it('round-trip a spec through its JSON text', () => {
    const spec = validatePreprocess({
      resize: 'crop',
      mean: [0.485, 0.456, 0.406],
      std: [0.229, 0.224, 0.225],
      dims: { n: 1 },
    });
    const text = formatPreprocess(spec);
    expect(parsePreprocess(text)).toEqual(spec);
    expect(Object.keys(JSON.parse(text))).toEqual([...PREPROCESS_FIELDS]);
  });

  it('says when the text is not JSON', () => {
    const e = errorOf(() => parsePreprocess('{resize: crop}'));
    expect(e.name).toBe('PreprocessError');
    expect(e.message).toMatch(/not valid JSON/);
  });
});
