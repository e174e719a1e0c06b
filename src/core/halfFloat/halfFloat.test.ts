import { describe, expect, it } from 'vitest';
import {
  DataType,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
  readTensorAsFloat32,
} from '../onnx/index.ts';
import {
  bfloat16ToNumber,
  float16ToNumber,
  float16Values,
  numberToBfloat16,
  numberToFloat16,
} from '../onnx/halfFloat.ts';
import { castRegion } from './castRegion.ts';
import { float16Nodes, float16ToFloat32, float32ToFloat16, withFloat32Interface } from './float16.ts';
import { inferElementTypes } from '../onnx/elementTypeInference.ts';

describe('half-float rounding', () => {
  it.each([
    [1, 0x3c00],
    [-2, 0xc000],
    [65504, 0x7bff],
    [65520, Infinity],
    [2 ** -24, 0x0001],
    [2 ** -25, 0x0000],
    [1 + 2 ** -11, 0x3c00], // a tie: to even (down)
    [1 + 3 * 2 ** -11, 0x3c02], // a tie: to even (up)
    [0.1, 0x2e66],
  ])('float16(%d) = %s', (value, bits) => {
    const got = numberToFloat16(value);
    if (bits === Infinity) expect(float16ToNumber(got)).toBe(Infinity);
    else expect(got).toBe(bits);
  });

  it("bfloat16 rounds to nearest even as onnxruntime's Cast does (measured: π → 3.140625, −e → −2.71875)", () => {
    expect(bfloat16ToNumber(numberToBfloat16(Math.PI))).toBe(3.140625);
    expect(bfloat16ToNumber(numberToBfloat16(-Math.E))).toBe(-2.71875);
    expect(numberToBfloat16(1 + 2 ** -8)).toBe(0x3f80); // tie → even
    expect(numberToBfloat16(1 + 3 * 2 ** -8)).toBe(0x3f82);
    expect(Number.isNaN(bfloat16ToNumber(numberToBfloat16(NaN)))).toBe(true);
  });
});

/** x → Conv(w) → c → Relu → r → Shape → s (int64); r → Resize(roi, scales) → y. */
function convResize() {
  return makeModel(
    makeGraph({
      node: [
        makeNode('Conv', ['x', 'w'], ['c'], 'conv'),
        makeNode('Relu', ['c'], ['r'], 'relu'),
        makeNode('Shape', ['r'], ['s'], 'shape'),
        makeNode('Resize', ['r', '', 'scales'], ['y'], 'resize'),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 1, 2, 2])],
      output: [makeValueInfo('y', DataType.FLOAT, [1, 1, 4, 4]), makeValueInfo('s', DataType.INT64, [4])],
      initializer: [
        makeTensor('w', DataType.FLOAT, [1, 1, 1, 1], Float32Array.of(0.1)),
        makeTensor('scales', DataType.FLOAT, [4], Float32Array.of(1, 1, 2, 2)),
      ],
    }),
    { '': 13 },
  );
}

describe('element types and precision changes', () => {
  it('infers types through op rules: Shape is int64 whatever its input, Resize follows its data', () => {
    const types = inferElementTypes(convResize().graph!);
    expect(types.get('r')).toBe(DataType.FLOAT);
    expect(types.get('s')).toBe(DataType.INT64);
    expect(types.get('y')).toBe(DataType.FLOAT);
  });

  it('float32ToFloat16 converts weights, tensors and the interface; Resize scales stay float32; float16ToFloat32 undoes it', () => {
    const half = float32ToFloat16(convResize());
    const g = half.graph!;
    const types = inferElementTypes(g);
    expect(g.input[0].type!.tensor_type!.elem_type).toBe(DataType.FLOAT16);
    expect(g.initializer.find((t) => t.name === 'w')!.data_type).toBe(DataType.FLOAT16);
    expect(g.initializer.find((t) => t.name === 'scales')!.data_type).toBe(DataType.FLOAT);
    expect(types.get('y')).toBe(DataType.FLOAT16);
    expect(types.get('s')).toBe(DataType.INT64);
    expect(g.node.some((n) => n.op_type === 'Cast')).toBe(false);
    expect(float16Nodes(half).size).toBe(4);
    const back = float16ToFloat32(half);
    expect(float16Nodes(back).size).toBe(0);
    expect(readTensorAsFloat32(back.graph!.initializer.find((t) => t.name === 'w')!)[0]).toBeCloseTo(0.1, 4);
  });

  it('a region gets one Cast per tensor at each border, placed before its first reader; names are kept', () => {
    const model = convResize();
    const relu = model.graph!.node[1];
    const g = castRegion(model.graph!, { region: new Set([relu]), to: DataType.FLOAT16, opset: 13 });
    expect(g.node.map((n) => n.op_type)).toEqual(['Conv', 'Cast', 'Relu', 'Cast', 'Shape', 'Resize']);
    expect(g.node[1]).toMatchObject({ input: ['c'], output: ['c_fp16'] });
    expect(g.node[2]).toMatchObject({ name: 'relu', input: ['c_fp16'], output: ['r'] });
    // Shape and Resize read the float32 copy of r, made once.
    expect(g.node[4].input[0]).toBe('r_fp32');
    expect(g.node[5].input[0]).toBe('r_fp32');
    expect(g.node.filter((n) => n.output[0] === 'r_fp32')).toHaveLength(1);
  });

  it('a graph output whose type stays is renamed inside and cast back under its own name', () => {
    const model = convResize();
    const resize = model.graph!.node[3];
    const g = castRegion(model.graph!, { region: new Set([resize]), to: DataType.FLOAT16, opset: 13 });
    const last = g.node[g.node.length - 1];
    expect(last).toMatchObject({ op_type: 'Cast', input: ['y_fp16'], output: ['y'] });
    expect(g.output[0].type!.tensor_type!.elem_type).toBe(DataType.FLOAT);
    expect(g.node.find((n) => n.name === 'resize')!.input[2]).toBe('scales'); // still float32
  });

  it("withFloat32Interface puts Casts at a float16 model's inputs and outputs only", () => {
    const g = withFloat32Interface(float32ToFloat16(convResize())).graph!;
    expect(g.input[0].type!.tensor_type!.elem_type).toBe(DataType.FLOAT);
    expect(g.output[0].type!.tensor_type!.elem_type).toBe(DataType.FLOAT);
    expect(g.node.filter((n) => n.op_type === 'Cast')).toHaveLength(2);
    expect(inferElementTypes(g).get('r')).toBe(DataType.FLOAT16);
  });
});

describe('float16Values', () => {
  it('holds float16ToNumber of every one of the 65536 bit patterns, as a float32 (NaN where it is NaN)', () => {
    const table = float16Values();
    expect(table.length).toBe(0x10000);
    for (let bits = 0; bits < 0x10000; bits++) {
      const want = float16ToNumber(bits);
      if (Number.isNaN(want)) expect(table[bits]).toBeNaN();
      else expect(table[bits]).toBe(want);
    }
  });
});
