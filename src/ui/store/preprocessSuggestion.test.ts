import { describe, expect, it } from 'vitest';
import type { ModelSummary } from '../../core/onnx/index.ts';
import { suggestPreprocess, symbolicDims } from './preprocessSuggestion.ts';

const summary = (fileName: string, shape: (number | string)[], outputs: [string, (number | string)[]][] = []) =>
  ({
    fileName,
    inputs: [{ name: 'input', elemType: 'float32', shape }],
    outputs: outputs.map(([name, s]) => ({ name, elemType: 'float32', shape: s })),
  }) as unknown as ModelSummary;

describe('preprocessing suggestion', () => {
  it.each([
    ['yolox-nano.onnx', [1, 3, 416, 416], 'yolo'],
    ['ultraface-rfb-320.onnx', [1, 3, 240, 320], 'ultraface'],
    ['yunet-n-dynamic.onnx', ['batch', 3, 'height', 'width'], 'bgr-255'],
    ['super-resolution-10.onnx', ['batch', 1, 224, 224], 'y-channel'],
    ['mnist.onnx', [1, 1, 28, 28], 'unit'],
    ['model.onnx', [1, 3, 300, 300], 'unit'],
  ])('%s → %s', (fileName, shape, preset) => {
    expect(suggestPreprocess(summary(fileName, shape)).preset).toBe(preset);
  });

  it('recognises an ImageNet classifier by its 1000 scores, and says what it recognised', () => {
    const s = suggestPreprocess(summary('resnet50.onnx', [1, 3, 224, 224], [['logits', [1, 1000]]]));
    expect(s.preset).toBe('imagenet');
    expect(s.reason).toContain('ImageNet');
    expect(s.guess.evidence.join(' ')).toContain('1000');
  });

  it('gives every symbolic dimension a value, so calibration is not blocked', () => {
    const s = summary('yunet-n-dynamic.onnx', ['batch', 3, 'height', 'width']);
    expect(suggestPreprocess(s).spec.dims).toEqual({ batch: 1, height: 640, width: 640 });
    expect(suggestPreprocess(s).guess.dimsSource).toBe('fallback');
    expect(symbolicDims(s)).toEqual(['batch', 'height', 'width']);
  });
});
