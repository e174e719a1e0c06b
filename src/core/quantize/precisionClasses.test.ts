import { describe, expect, it } from 'vitest';
import type { NodeId } from '../onnx/model.ts';
import { nodePrecisions, precisionClassOf, precisionCounts } from './precisionClasses.ts';
import { quantizeModel } from './quantizeModel.ts';
import { getPreset } from './presets.ts';
import { convBatchNormModel, rangesForEveryTensor } from './testModels.ts';

describe('precision classes', () => {
  it("reads the quantizer's labels", () => {
    expect(precisionClassOf('A8W8')).toBe('int8');
    expect(precisionClassOf('A8')).toBe('int8');
    expect(precisionClassOf('A16W8')).toBe('act16');
    expect(precisionClassOf('A16')).toBe('act16');
    expect(precisionClassOf('A8W16')).toBe('w16');
    expect(precisionClassOf('A-W16')).toBe('w16');
    expect(precisionClassOf('A16W16')).toBe('a16w16');
    expect(precisionClassOf('float')).toBe('float');
    expect(precisionClassOf('BF16')).toBe('bf16');
  });

  it('gives every node of a report its class; fused-function members (no label) are left out', () => {
    const p = nodePrecisions({
      config: 'A8W8',
      quantized: [
        { id: 'Conv_0' as NodeId, opType: 'Conv', family: 'conv', precision: 'A16W8' },
        { id: 'Conv_1' as NodeId, opType: 'Conv', family: 'conv', precision: 'A8W16' },
        { id: 'Relu_2' as NodeId, opType: 'Relu', family: 'act', precision: 'A8' },
        { id: 'Div_3' as NodeId, opType: 'Div', family: 'fused', precision: '' },
      ],
      float: [{ id: 'Softmax_4' as NodeId, opType: 'Softmax', reason: 'excluded by node name' }],
    });
    expect(p).toEqual({
      Conv_0: { label: 'A16W8', class: 'act16' },
      Conv_1: { label: 'A8W16', class: 'w16' },
      Relu_2: { label: 'A8', class: 'int8' },
      Softmax_4: { label: 'float', class: 'float' },
    });
    expect(precisionCounts(p)).toEqual({ act16: 1, w16: 1, int8: 1, float: 1 });
    expect(
      nodePrecisions({ config: 'BF16', quantized: [], float: [{ id: 'Conv_0' as NodeId, opType: 'Conv', reason: '' }] })
        .Conv_0,
    ).toEqual({ label: 'BF16', class: 'bf16' });
  });
});

describe('a node preparation folded into another', () => {
  it('takes the precision of the node it was folded into (a BatchNormalization, its Conv’s)', () => {
    const model = convBatchNormModel();
    const { report } = quantizeModel(model, rangesForEveryTensor(model), getPreset('A8W8'));
    expect(report.folded).toEqual([{ id: 'bn', into: 'conv' }]);
    const precisions = nodePrecisions(report);
    expect(precisions['bn']).toEqual(precisions['conv']);
    expect(precisions['bn'].label).toBe('A8W8');
  });
});
