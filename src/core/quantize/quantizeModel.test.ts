import { describe, expect, it } from 'vitest';
import {
  buildGraphIndex,
  DataType,
  inferElementTypes,
  makeGraph,
  makeModel,
  makeNode,
  makeValueInfo,
  opsetOf,
  type ModelProto,
} from '../onnx/index.ts';
import { quantizeModel } from './quantizeModel.ts';
import { getPreset } from './presets.ts';
import { configToJSON, validateConfig } from './config.ts';
import {
  CONV_RELU_RANGES,
  convReluModel,
  maxPoolWithIndicesModel,
  rangesForEveryTensor,
  shapeArithmeticModel,
} from './testModels.ts';
import { float32ToFloat16 } from '../halfFloat/float16.ts';

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
    const config = validateConfig({
      ...JSON.parse(configToJSON(getPreset('U8S8'))),
      extraOptions: { DedicatedQDQPair: true },
    });
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
    expect(() => quantizeModel(model, ranges, getPreset('U8S8'))).toThrow(
      expect.objectContaining({ name: 'UnsupportedModelError', message: expect.stringMatching(/already quantized/) }),
    );
  });

  it('quantizes a float16 model as QuantizeFP16 does: float16 Q/DQ scales, float parts stay float16, the interface kept', () => {
    const half = float32ToFloat16(convRelu());
    const { model, report } = quantizeModel(half, ranges, getPreset('U8S8'));
    const types = inferElementTypes(model.graph!);
    const exp = model.graph!.node.find((n) => n.op_type === 'Exp')!;
    expect(types.get(exp.output[0])).toBe(DataType.FLOAT16);
    expect(model.graph!.input[0].type!.tensor_type!.elem_type).toBe(DataType.FLOAT16);
    // The int32 bias keeps its float32 scale (float16 would flush input·weight scales towards zero), and so do
    // the Conv's input and weight Q/DQ, which onnxruntime's default session fuses into a float32-scale QLinearConv:
    // a Cast stands between each and the float16 Conv, and x's float16 QuantizeLinear reads its scale cast.
    const casts = model.graph!.node.filter((n) => n.op_type === 'Cast');
    expect(casts.map((c) => c.input[0]).sort()).toEqual([
      'b_DequantizeLinear_Output',
      'w_DequantizeLinear_Output',
      'x_DequantizeLinear_Output',
      'x_scale',
    ]);
    expect(model.opset_import.find((o) => !o.domain)!.version).toBe(19); // float16 Q/DQ need ai.onnx 19
    expect(report.float16).toEqual({ keptNodes: 3, scales: 'float16' });
    expect(report.warnings[0]).toMatch(/quantized as with QuantizeFP16/);
  });

  it('UseFP32Scale keeps float32 scales with Casts around them; ConvertFP16ToFP32 writes a float32 model', () => {
    const base = JSON.parse(configToJSON(getPreset('U8S8')));
    const fp32Scale = quantizeModel(
      float32ToFloat16(convRelu()),
      ranges,
      validateConfig({ ...base, extraOptions: { QuantizeFP16: true, UseFP32Scale: true } }),
    );
    const scales = fp32Scale.model.graph!.initializer.filter((t) => t.name!.endsWith('_scale'));
    expect(scales.every((t) => t.data_type === DataType.FLOAT)).toBe(true);
    expect(fp32Scale.model.graph!.node.some((n) => n.op_type === 'Cast')).toBe(true);
    expect(fp32Scale.report.float16!.scales).toBe('float32');
    const converted = quantizeModel(
      float32ToFloat16(convRelu()),
      ranges,
      validateConfig({ ...base, extraOptions: { ConvertFP16ToFP32: true } }),
    );
    expect(converted.model.graph!.input[0].type!.tensor_type!.elem_type).toBe(DataType.FLOAT);
    expect([...inferElementTypes(converted.model.graph!).values()]).not.toContain(DataType.FLOAT16);
    expect(converted.report.warnings).toEqual([]);
  });

  it('quantizes a tensor widened to 16 bits on the extremes calibration saw, an 8-bit one on its clipped range', () => {
    const clipped = new Map(
      [...ranges].map(([k, r]) => [k, k === 'y' ? { min: 0, max: 0.5, observed: { min: 0, max: 0.7 } } : r]),
    );
    const base = JSON.parse(configToJSON(getPreset('A8W8')));
    const scaleOf = (m: ModelProto, t: string) => {
      const q = m.graph!.node.find((n) => n.op_type === 'QuantizeLinear' && n.input[0].startsWith(t))!;
      return new Float32Array(
        new Uint8Array(m.graph!.initializer.find((i) => i.name === q.input[1])!.raw_data!).slice().buffer,
      )[0];
    };
    const eight = quantizeModel(convRelu(), clipped, validateConfig(base)).model;
    expect(scaleOf(eight, 'y')).toBeCloseTo(0.5 / 127, 7);
    const wide = quantizeModel(
      convRelu(),
      clipped,
      validateConfig({
        ...base,
        extraOptions: { ...base.extraOptions, TensorQuantOverrides: { y: [{ quant_type: 'int16' }] } },
      }),
    ).model;
    expect(scaleOf(wide, 'y')).toBeCloseTo(0.7 / 32767, 9);
  });
});

/** The element type of the tensor each QuantizeLinear of a written model reads. */
function quantizedTypes(model: ModelProto): Map<string, number | undefined> {
  const types = inferElementTypes(model.graph!, { opset: opsetOf(model) ?? 13 });
  const q = model.graph!.node.filter((n) => n.op_type === 'QuantizeLinear');
  return new Map(q.map((n) => [n.input[0], types.get(n.input[0])]));
}

describe('Q/DQ only on float tensors', () => {
  it('leaves the int64 shape arithmetic of an expanded LayerNormalization alone, even with ranges for it', () => {
    const { model, report } = quantizeModel(
      shapeArithmeticModel(),
      rangesForEveryTensor(shapeArithmeticModel()),
      getPreset('U8S8'),
    );
    const read = quantizedTypes(model);
    expect([...read.values()].every((t) => t === DataType.FLOAT)).toBe(true);
    expect([...read.keys()]).toEqual(expect.arrayContaining(['x', 'mean', 'centred', 'scaled']));
    const floatReasons = Object.fromEntries(report.float.map((f) => [f.opType, f.reason]));
    expect(floatReasons.Gather).toBe('its inputs carry no float activations (shape or index computation)');
    expect(floatReasons.Concat).toBe('its inputs carry no float activations (shape or index computation)');
    expect(report.quantized.map((q) => q.opType)).toEqual(expect.arrayContaining(['Reshape', 'Sub', 'Mul']));
  });

  it("gives MaxPool's int64 Indices no Q/DQ and says so in the report", () => {
    const { model, report } = quantizeModel(
      maxPoolWithIndicesModel(),
      rangesForEveryTensor(maxPoolWithIndicesModel()),
      getPreset('A16W8'),
    );
    expect([...quantizedTypes(model).keys()].sort()).toEqual(['pooled_QuantizeLinear_Input', 'x']);
    expect(report.notFloat).toEqual([{ tensor: 'indices', elemType: 'int64' }]);
    expect(model.graph!.output.map((o) => o.name)).toEqual(['pooled', 'indices']);
  });

  it("treats a tensor of unknown type as not float: a custom op's output gets no Q/DQ and its reader says why", () => {
    const model = makeModel(
      makeGraph({
        node: [
          makeNode('Mystery', ['x'], ['m'], 'mystery', [], 'com.example'),
          makeNode('Relu', ['m'], ['y'], 'relu'),
          makeNode('Sigmoid', ['x'], ['s'], 'sigmoid'),
        ],
        input: [makeValueInfo('x', DataType.FLOAT, [4])],
        output: [makeValueInfo('y', DataType.FLOAT, [4]), makeValueInfo('s', DataType.FLOAT, [4])],
      }),
      { '': 13, 'com.example': 1 },
    );
    const { report } = quantizeModel(model, rangesForEveryTensor(model), getPreset('U8S8'));
    expect(report.float).toContainEqual({
      id: 'relu',
      opType: 'Relu',
      reason: 'the element type of m is not known, so it is not treated as float',
    });
    expect(report.quantized.map((q) => q.id)).toEqual(['sigmoid']);
  });
});
