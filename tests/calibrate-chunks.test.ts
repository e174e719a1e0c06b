/** Calibration observed in chunks (outputs over the memory budget) gives the ranges of one session. */
import { describe, expect, it } from 'vitest';
import { decode } from '../src/core/onnx/index.ts';
import { calibrateOnImages } from '../src/cli/calibration/calibrateOnImages.ts';
import { getPreset } from '../src/core/quantize/presets.ts';
import { FIXTURE_PREPROCESS, PHOTOS } from './helpers/calibration.ts';
import { readModel } from './helpers/fixtures.ts';

describe('chunked calibration', () => {
  it('a budget of one byte splits the tensors into chunks and changes no range', async () => {
    const model = decode(readModel('mnist.onnx'));
    const options = { spec: FIXTURE_PREPROCESS['mnist.onnx'], config: getPreset('U8S8') };
    const whole = await calibrateOnImages(model, PHOTOS.slice(0, 2), options);
    const chunked = await calibrateOnImages(model, PHOTOS.slice(0, 2), { ...options, budgetBytes: 1 });
    expect(whole.chunks).toBe(1);
    expect(chunked.chunks).toBeGreaterThan(5);
    expect([...chunked.ranges]).toEqual([...whole.ranges]);
  });
});
