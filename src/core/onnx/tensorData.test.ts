import { describe, expect, it } from 'vitest';
import { DataType, intsAttribute, makeGraph, makeModel, makeNode, makeValueInfo, type TensorProto } from './model.ts';
import { makeTensor, moveTypedFieldsToRaw, readTensor, readTensorAsFloat32 } from './tensorData.ts';
import { decode } from './decode.ts';
import { encode } from './encode.ts';
import { InvalidModelError } from './errors.ts';

function typedTensor(dataType: number, dims: number[], field: keyof TensorProto, values: number[]): TensorProto {
  const t = makeTensor('t', DataType.FLOAT, [0], new Float32Array(0));
  t.data_type = dataType;
  t.dims = dims;
  t.raw_data = undefined;
  (t[field] as number[]) = values;
  return t;
}

/** Each element type stored in its typed field, and the elements the codec must read back. */
const typedCases: [string, number, keyof TensorProto, number[], ArrayLike<number | bigint>][] = [
  ['float32', DataType.FLOAT, 'float_data', [1.5, -2, 3.25], Float32Array.of(1.5, -2, 3.25)],
  ['float64', DataType.DOUBLE, 'double_data', [0.1, -1e300, 7], Float64Array.of(0.1, -1e300, 7)],
  ['int8', DataType.INT8, 'int32_data', [-128, 0, 127], Int8Array.of(-128, 0, 127)],
  ['uint8', DataType.UINT8, 'int32_data', [0, 128, 255], Uint8Array.of(0, 128, 255)],
  ['int16', DataType.INT16, 'int32_data', [-32768, 1, 32767], Int16Array.of(-32768, 1, 32767)],
  ['uint16', DataType.UINT16, 'int32_data', [0, 40000, 65535], Uint16Array.of(0, 40000, 65535)],
  ['int32', DataType.INT32, 'int32_data', [-2147483648, 5, 2147483647], Int32Array.of(-2147483648, 5, 2147483647)],
  ['int64', DataType.INT64, 'int64_data', [-5, 0, 2 ** 40], BigInt64Array.of(-5n, 0n, 2n ** 40n)],
  ['uint32', DataType.UINT32, 'uint64_data', [0, 4294967295, 7], Uint32Array.of(0, 4294967295, 7)],
  ['uint64', DataType.UINT64, 'uint64_data', [0, 2 ** 40, 7], BigUint64Array.of(0n, 2n ** 40n, 7n)],
  ['bool', DataType.BOOL, 'int32_data', [1, 0, 1], Uint8Array.of(1, 0, 1)],
  // float16 1.0 = 0x3c00, -2.0 = 0xc000; bfloat16 1.0 = 0x3f80.
  ['float16 (bit patterns)', DataType.FLOAT16, 'int32_data', [0x3c00, 0xc000, 0], Uint16Array.of(0x3c00, 0xc000, 0)],
  ['bfloat16 (bit patterns)', DataType.BFLOAT16, 'int32_data', [0x3f80, 0, 0xbf80], Uint16Array.of(0x3f80, 0, 0xbf80)],
  // int4 [1, -2, 7] packs to bytes 0xe1 (low nibble 1, high nibble -2 = 0xe), 0x07.
  ['int4 (packed)', DataType.INT4, 'int32_data', [0xe1, 0x07], Int8Array.of(1, -2, 7)],
  ['uint4 (packed)', DataType.UINT4, 'int32_data', [0xf0, 0x03], Uint8Array.of(0, 15, 3)],
];

describe('tensor codecs', () => {
  for (const [name, dataType, field, stored, expected] of typedCases) {
    it(`${name}: typed field → raw_data → elements`, () => {
      const t = typedTensor(dataType, [3], field, stored);
      moveTypedFieldsToRaw(t);
      expect(t[field]).toEqual([]);
      expect(Array.from(readTensor(t) as ArrayLike<number>)).toEqual(Array.from(expected as ArrayLike<number>));
    });
    it(`${name}: makeTensor → readTensor gives the elements back`, () => {
      const Ctor = (expected as unknown as { constructor: new (a: ArrayLike<number | bigint>) => Uint8Array })
        .constructor;
      const t = makeTensor('w', dataType, [3], new Ctor(expected) as unknown as Uint8Array);
      expect(Array.from(readTensor(t) as ArrayLike<number>)).toEqual(Array.from(expected as ArrayLike<number>));
    });
  }

  it('reads float16 and bfloat16 values as float32 numbers', () => {
    const half = makeTensor('h', DataType.FLOAT16, [3], Uint16Array.of(0x3c00, 0xc000, 0x3555));
    expect(Array.from(readTensorAsFloat32(half))).toEqual([1, -2, Math.fround(0.333251953125)]);
    const bf = makeTensor('b', DataType.BFLOAT16, [2], Uint16Array.of(0x3f80, 0xc040));
    expect(Array.from(readTensorAsFloat32(bf))).toEqual([1, -3]);
  });

  it('reads a one-element tensor (a Q/DQ scale or zero point) as readTensor does, at every byte alignment', () => {
    const scalars: [
      number,
      (v: number) => Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array,
      number[],
    ][] = [
      [DataType.FLOAT, (v) => Float32Array.of(v), [0.0123, -3.5e-7, 65504, -0]],
      [DataType.INT8, (v) => Int8Array.of(v), [-128, -1, 0, 127]],
      [DataType.UINT8, (v) => Uint8Array.of(v), [0, 128, 255]],
      [DataType.INT16, (v) => Int16Array.of(v), [-32768, -2, 32767]],
      [DataType.UINT16, (v) => Uint16Array.of(v), [0, 40000, 65535]],
      [DataType.INT32, (v) => Int32Array.of(v), [-2147483648, -7, 2147483647]],
      [DataType.DOUBLE, (v) => Float64Array.of(v), [0.1]],
      [DataType.FLOAT16, (v) => Uint16Array.of(v), [0x3c00]],
    ];
    for (const [dataType, array, values] of scalars)
      for (const value of values)
        for (const dims of [[], [1], [1, 1]])
          for (let offset = 0; offset < 4; offset++) {
            const t = makeTensor('s', dataType, dims, array(value));
            // The same bytes at `offset` in a larger buffer, as a decoded file's raw_data views lie.
            const bytes = new Uint8Array(16);
            bytes.set(t.raw_data!, offset);
            t.raw_data = bytes.subarray(offset, offset + t.raw_data!.byteLength);
            const element = Number((readTensor(t) as ArrayLike<number>)[0]);
            const expected = dataType === DataType.FLOAT16 ? 1 : Math.fround(element);
            expect(Array.from(readTensorAsFloat32(t)), `type ${dataType} value ${value} offset ${offset}`).toEqual([
              expected,
            ]);
          }
  });

  it('saturates rounded int64 sentinels instead of wrapping them', () => {
    // INT64_MAX decodes to the double 2^63; it must be written back as INT64_MAX, not INT64_MIN.
    const t = typedTensor(DataType.INT64, [2], 'int64_data', [2 ** 63, -(2 ** 63)]);
    moveTypedFieldsToRaw(t);
    expect(Array.from(readTensor(t) as BigInt64Array)).toEqual([2n ** 63n - 1n, -(2n ** 63n)]);
  });

  it('refuses data that does not match the shape, naming the tensor', () => {
    const t = typedTensor(DataType.FLOAT, [4], 'float_data', [1, 2, 3]);
    expect(() => moveTypedFieldsToRaw(t)).toThrow(InvalidModelError);
    expect(() => moveTypedFieldsToRaw(t)).toThrow(/tensor "t": 3 values in float_data for 4 float32/);
  });

  it('an attribute holding INT64_MAX survives encode(decode())', () => {
    const slice = makeNode('Slice', ['x'], ['y'], 's', [intsAttribute('ends', [2 ** 63])]);
    const model = makeModel(
      makeGraph({
        node: [slice],
        input: [makeValueInfo('x', DataType.FLOAT, [4])],
        output: [makeValueInfo('y', DataType.FLOAT)],
      }),
      { '': 9 },
    );
    const bytes = encode(model);
    // INT64_MAX as a varint: 0xff ×8 then 0x7f.
    expect(Buffer.from(bytes).includes(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]))).toBe(true);
    const again = encode(decode(bytes));
    expect(Buffer.compare(Buffer.from(again), Buffer.from(bytes))).toBe(0);
  });
});
