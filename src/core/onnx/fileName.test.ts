import { describe, expect, it } from 'vitest';
import { modelStem } from './fileName.ts';

describe('modelStem', () => {
  it('drops a final .onnx in any case and leaves other names alone', () => {
    expect(modelStem('yolox-nano.onnx')).toBe('yolox-nano');
    expect(modelStem('dir/Model.ONNX')).toBe('dir/Model');
    expect(modelStem('m.quant.onnx')).toBe('m.quant');
    expect(modelStem('m.onnx.data')).toBe('m.onnx.data');
    expect(modelStem('model')).toBe('model');
  });
});
