/**
 * onnxruntime's QDQ propagation also moves a QuantizeLinear backwards, past a data-movement op (Transpose, Reshape,
 * Slice, MaxPool) whose input has no DequantizeLinear before it, inserting a Q/DQ pair of its own there. The forward
 * direction wrote pairs onnxruntime refused at opset 21 (core/quantize/propagationGuard.ts); this checks the backward
 * one on models built here: a float op, the data-movement op, then a Q/DQ pair of each integer type the presets
 * write, at opset 21 (and 13 for 8 bits), loaded and run by onnxruntime-node at 'all' (where propagation runs) and 'basic'.
 * Measured 2026-11-28: every case loads and runs, so no guard is written for this direction.
 */
import { describe, expect, it } from 'vitest';
import { DataType, encode, makeNode, makeTensor, type NodeProto, type TensorProto } from '../src/core/onnx/index.ts';
import { intsAttribute } from '../src/core/onnx/model.ts';
import { createSession, float32Tensor } from '../src/cli/runtime/ortNode.ts';
import { floatIO, smallModel } from './helpers/smallModels.ts';

const MOVES: Record<string, { nodes: (i: string, o: string) => NodeProto[]; initializers: TensorProto[] }> = {
  Transpose: {
    nodes: (i, o) => [makeNode('Transpose', [i], [o], 'move', [intsAttribute('perm', [0, 1, 3, 2])])],
    initializers: [],
  },
  Reshape: {
    nodes: (i, o) => [makeNode('Reshape', [i, 'shape'], [o], 'move')],
    initializers: [makeTensor('shape', DataType.INT64, [4], new BigInt64Array([1n, 2n, 2n, 8n]))],
  },
  Slice: {
    nodes: (i, o) => [makeNode('Slice', [i, 'starts', 'ends'], [o], 'move')],
    initializers: [
      makeTensor('starts', DataType.INT64, [1], new BigInt64Array([0n])),
      makeTensor('ends', DataType.INT64, [1], new BigInt64Array([1n])),
    ],
  },
  MaxPool: {
    nodes: (i, o) => [makeNode('MaxPool', [i], [o], 'move', [intsAttribute('kernel_shape', [1, 1])])],
    initializers: [],
  },
};
const ZERO_POINTS: [string, number, ArrayLike<number> & object][] = [
  ['int8', DataType.INT8, new Int8Array([0])],
  ['uint8', DataType.UINT8, new Uint8Array([128])],
  ['int16', DataType.INT16, new Int16Array([0])],
  ['uint16', DataType.UINT16, new Uint16Array([32768])],
];

function model(move: string, zpType: number, zp: ArrayLike<number> & object, opset: number) {
  return smallModel({
    opset,
    nodes: [
      makeNode('Relu', ['x'], ['r'], 'float_op'),
      ...MOVES[move].nodes('r', 'm'),
      makeNode('QuantizeLinear', ['m', 's', 'zp'], ['q'], 'q'),
      makeNode('DequantizeLinear', ['q', 's', 'zp'], ['d'], 'dq'),
      makeNode('Mul', ['d', 'k'], ['y'], 'mul'),
    ],
    inputs: [floatIO('x', [1, 2, 4, 4])],
    outputs: [floatIO('y')],
    initializers: [
      ...MOVES[move].initializers,
      makeTensor('s', DataType.FLOAT, [], new Float32Array([0.05])),
      makeTensor('zp', zpType, [], zp as never),
      makeTensor('k', DataType.FLOAT, [], new Float32Array([2])),
    ],
  });
}

describe("onnxruntime's backward QDQ propagation (a Q moved back past a data-movement op)", () => {
  const cases = ZERO_POINTS.flatMap(([type, zpType, zp]) =>
    [21, ...(type.endsWith('8') ? [13] : [])].flatMap((opset) =>
      Object.keys(MOVES).map((move) => ({ type, zpType, zp, opset, move })),
    ),
  );
  it.each(cases)(
    "$move before a $type Q at opset $opset loads and runs at 'all' and 'basic', the same figures",
    async ({ move, zpType, zp, opset }) => {
      const bytes = encode(model(move, zpType, zp, opset));
      const x = float32Tensor(
        Float32Array.from({ length: 32 }, (_, i) => i / 10 - 1),
        [1, 2, 4, 4],
      );
      const outputs: Float32Array[] = [];
      for (const level of ['all', 'basic'] as const) {
        const session = await createSession(bytes, 1, level, false);
        outputs.push((await session.run({ x })).y.data as Float32Array);
        await session.release();
      }
      expect(outputs[0].length).toBeGreaterThan(0);
      expect(Array.from(outputs[0])).toEqual(Array.from(outputs[1]));
    },
  );
});
