import { describe, expect, it } from 'vitest';
import { buildGraphIndex, DataType, makeGraph, makeModel, makeNode, makeTensor, makeValueInfo } from '../onnx/index.ts';
import { quantizeModel } from './quantizeModel.ts';
import { getPreset } from './presets.ts';
import { configToJSON, validateConfig } from './config.ts';
import { CONV_RELU_RANGES, convReluModel } from './testModels.ts';

const convRelu = convReluModel;
const ranges = CONV_RELU_RANGES;

describe('quantizeModel on small models', () => {
  it('fuses Relu after Conv (no Q/DQ between them), keeps graph output names, lists ops without a rule as float', () => {
    const { model, report } = quantizeModel(convRelu(), ranges, getPreset('U8S8'));
    const index = buildGraphIndex(model.graph!);
    const conv = index.nodes.find((n) => n.op_type === 'Conv')!;
    const relu = index.nodes.find((n) => n.op_type === 'Relu')!;
    expect(relu.input[0]).toBe(conv.output[0]); // read straight from the Conv
    expect(model.graph!.output.map((o) => o.name)).toEqual(['y', 'z']);
    expect(index.nodes[index.producer.get('y')!].op_type).toBe('DequantizeLinear');
    expect(report.float).toEqual([{ id: 'Exp_2', opType: 'Exp', reason: 'no quantization rule for Exp' }]);
    expect(report.quantized.map((q) => q.id)).toEqual(['Conv_0', 'Relu_1']);
    // Unnamed nodes take their stable ids as names in the written file.
    expect(conv.name).toBe('Conv_0');
  });

  it('gives each consumer its own pair with DedicatedQDQPair', () => {
    const config = validateConfig({ ...JSON.parse(configToJSON(getPreset('U8S8'))), extraOptions: { DedicatedQDQPair: true } });
    const twoReaders = convRelu();
    twoReaders.graph!.node.push(makeNode('Exp', ['y'], ['z2']));
    twoReaders.graph!.output.push(makeValueInfo('z2', DataType.FLOAT, [1, 2, 2, 2]));
    const { model } = quantizeModel(twoReaders, ranges, config);
    const pairs = model.graph!.node.filter((n) => n.op_type === 'QuantizeLinear' && n.input[0].startsWith('y'));
    const readers = model.graph!.node.filter((n) => n.op_type === 'Exp').map((n) => n.input[0]);
    expect(pairs.length).toBe(3); // one per Exp, one that writes the graph output y
    expect(new Set(readers).size).toBe(2);
  });

  it('refuses a model that is already quantized', () => {
    const { model } = quantizeModel(convRelu(), ranges, getPreset('U8S8'));
    expect(() => quantizeModel(model, ranges, getPreset('U8S8'))).toThrow(expect.objectContaining({ name: 'UnsupportedModelError', message: expect.stringMatching(/already quantized/) }));
  });

  it('refuses a float16 model', () => {
    const w = makeTensor('w', DataType.FLOAT16, [2], Uint16Array.of(0x3c00, 0x4000));
    const model = makeModel(makeGraph({
      node: [makeNode('Mul', ['x', 'w'], ['y'])],
      input: [makeValueInfo('x', DataType.FLOAT16, [2])],
      output: [makeValueInfo('y', DataType.FLOAT16, [2])],
      initializer: [w],
    }));
    expect(() => quantizeModel(model, new Map(), getPreset('A8W8'))).toThrow(/float16/);
  });
});
