import { describe, expect, it } from 'vitest';
import type { ModelSummary } from '../../core/onnx/index.ts';
import { suggestPreprocess, symbolicDims } from './preprocessSuggestion.ts';

const summary = (fileName: string, shape: (number | string)[]) =>
  ({ fileName, inputs: [{ name: 'input', elemType: 'float32', shape }] }) as unknown as ModelSummary;

describe('preprocessing suggestion', () => {
  it.each([
    ['yolox-nano.onnx', [1, 3, 416, 416], 'yolo'],
    ['ultraface-rfb-320.onnx', [1, 3, 240, 320], 'ultraface'],
    ['yunet-n-dynamic.onnx', ['batch', 3, 'height', 'width'], 'bgr-255'],
    ['super-resolution-10.onnx', ['batch', 1, 224, 224], 'y-channel'],
    ['mnist.onnx', [1, 1, 28, 28], 'unit'],
    ['resnet50.onnx', [1, 3, 224, 224], 'imagenet'],
    ['model.onnx', [1, 3, 300, 300], 'unit'],
  ])('%s → %s', (fileName, shape, preset) => {
    expect(suggestPreprocess(summary(fileName, shape)).preset).toBe(preset);
  });

  it('sets a symbolic batch to 1 and leaves the other symbolic dimensions to the user', () => {
    const s = summary('yunet-n-dynamic.onnx', ['batch', 3, 'height', 'width']);
    expect(suggestPreprocess(s).spec.dims).toEqual({ batch: 1 });
    expect(symbolicDims(s)).toEqual(['batch', 'height', 'width']);
  });
});
