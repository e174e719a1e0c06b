import { describe, expect, it } from 'vitest';
import { getPreprocessPreset, isPresetName, PRESET_DESCRIPTIONS, PRESET_NAMES } from './presets.ts';
import { validatePreprocess } from './spec.ts';
import { imageToTensor } from './toTensor.ts';

describe('preprocessing presets', () => {
  it.each(PRESET_NAMES)('%s is a valid spec, described', (name) => {
    const spec = getPreprocessPreset(name);
    expect(validatePreprocess(spec)).toEqual(spec);
    expect(PRESET_DESCRIPTIONS[name]).toBeTruthy();
  });

  it('yolo matches YOLOX preproc: BGR 0–255, letterbox at the top-left padded with 114, no normalisation', () => {
    // Two pixels (r, g, b) = (10, 20, 30), (40, 50, 60) into a 3×2 input: the row at the top, two rows of 114 below.
    const data = new Uint8ClampedArray([10, 20, 30, 255, 40, 50, 60, 255]);
    const t = imageToTensor({ data, width: 2, height: 1 }, [1, 3, 3, 2], getPreprocessPreset('yolo'));
    expect(Array.from(t.data)).toEqual([
      ...[30, 60, 114, 114, 114, 114], // B
      ...[20, 50, 114, 114, 114, 114], // G
      ...[10, 40, 114, 114, 114, 114], // R
    ]);
  });

  it('ultraface is (x − 127) / 128 in RGB, stretched', () => {
    expect(getPreprocessPreset('ultraface')).toMatchObject({
      resize: 'stretch',
      channelOrder: 'RGB',
      scale: 1,
      mean: [127],
      std: [128],
    });
  });

  it('imagenet is x / 255 with ImageNet mean and std, short side resized and center cropped', () => {
    expect(getPreprocessPreset('imagenet')).toMatchObject({
      resize: 'crop',
      channelOrder: 'RGB',
      scale: 1 / 255,
      mean: [0.485, 0.456, 0.406],
      std: [0.229, 0.224, 0.225],
    });
  });

  it('y-channel gives one-channel models the YCbCr Y in 0–1; unit is RGB in 0–1', () => {
    expect(getPreprocessPreset('y-channel')).toMatchObject({ colorSpace: 'Y', scale: 1 / 255, mean: [0], std: [1] });
    expect(getPreprocessPreset('unit')).toMatchObject({
      resize: 'stretch',
      channelOrder: 'RGB',
      scale: 1 / 255,
      mean: [0],
      std: [1],
    });
  });

  it('returns a fresh copy each time', () => {
    const a = getPreprocessPreset('imagenet');
    a.mean[0] = 0;
    a.dims.height = 3;
    expect(getPreprocessPreset('imagenet').mean[0]).toBe(0.485);
    expect(getPreprocessPreset('imagenet').dims).toEqual({});
  });

  it('refuses an unknown name with the list of presets', () => {
    expect(isPresetName('yolox')).toBe(false);
    expect(() => getPreprocessPreset('yolox')).toThrow(/Unknown preprocessing preset "yolox".*imagenet, unit, yolo/);
  });
});
