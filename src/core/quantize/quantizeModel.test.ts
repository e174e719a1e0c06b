import { describe, expect, it } from 'vitest';
import { buildGraphIndex, DataType, makeGraph, makeModel, makeNode, makeTensor, makeValueInfo } from '../onnx/index.ts';
import { quantizeModel } from './quantizeModel.ts';
import { getPreset } from './presets.ts';
import { configToJSON, validateConfig } from './config.ts';
import { CONV_RELU_RANGES, convReluModel } from './testModels.ts';
import { float32ToFloat16 } from '../precision/float16.ts';
import { inferElementTypes } from '../precision/tensorTypes.ts';

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

  it('quantizes a float16 model as QuantizeFP16 does: float16 Q/DQ scales, float parts stay float16, the interface kept', () => {
    const half = float32ToFloat16(convRelu());
    const { model, report } = quantizeModel(half, ranges, getPreset('U8S8'));
    const types = inferElementTypes(model.graph!);
    const exp = model.graph!.node.find((n) => n.op_type === 'Exp')!;
    expect(types.get(exp.output[0])).toBe(DataType.FLOAT16);
    expect(model.graph!.input[0].type!.tensor_type!.elem_type).toBe(DataType.FLOAT16);
    // One Cast: the int32 bias keeps its float32 scale (float16 would flush input·weight scales towards zero).
    const casts = model.graph!.node.filter((n) => n.op_type === 'Cast');
    expect(casts.map((c) => c.input[0])).toEqual(['b_DequantizeLinear_Output']);
    expect(model.opset_import.find((o) => !o.domain)!.version).toBe(19); // float16 Q/DQ need ai.onnx 19
    expect(report.float16).toEqual({ keptNodes: 3, scales: 'float16' });
    expect(report.warnings[0]).toMatch(/quantized as with QuantizeFP16/);
  });

  it('UseFP32Scale keeps float32 scales with Casts around them; ConvertFP16ToFP32 writes a float32 model', () => {
    const base = JSON.parse(configToJSON(getPreset('U8S8')));
    const fp32Scale = quantizeModel(float32ToFloat16(convRelu()), ranges, validateConfig({ ...base, extraOptions: { QuantizeFP16: true, UseFP32Scale: true } }));
    const scales = fp32Scale.model.graph!.initializer.filter((t) => t.name!.endsWith('_scale'));
    expect(scales.every((t) => t.data_type === DataType.FLOAT)).toBe(true);
    expect(fp32Scale.model.graph!.node.some((n) => n.op_type === 'Cast')).toBe(true);
    expect(fp32Scale.report.float16!.scales).toBe('float32');
    const converted = quantizeModel(float32ToFloat16(convRelu()), ranges, validateConfig({ ...base, extraOptions: { ConvertFP16ToFP32: true } }));
    expect(converted.model.graph!.input[0].type!.tensor_type!.elem_type).toBe(DataType.FLOAT);
    expect([...inferElementTypes(converted.model.graph!).values()]).not.toContain(DataType.FLOAT16);
    expect(converted.report.warnings).toEqual([]);
  });
});
