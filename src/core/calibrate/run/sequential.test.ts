/**
 * The plan of sequential calibration (sequential.ts) on a model built in code: depth groups never put a
 * tensor before one it depends on, and the value read for each tensor in the quantized model is the one
 * before its own QuantizeLinear (a graph output's included, which the quantizer renames).
 */
import { describe, expect, it } from 'vitest';
import { DataType, makeGraph, makeModel, makeNode, makeValueInfo } from '../../onnx/model.ts';
import { makeTensor } from '../../onnx/tensorData.ts';
import { quantizeModel } from '../../quantize/quantizeModel.ts';
import { getPreset } from '../../quantize/presets.ts';
import { computedTensors, depthGroups, quantizedReadout } from './sequential.ts';

// x → a → b → c (output), and x → d → c: d is shallow but feeds the deepest tensor.
const model = makeModel(
  makeGraph({
    node: [
      makeNode('Relu', ['x'], ['a']),
      makeNode('Sigmoid', ['a'], ['b']),
      makeNode('Abs', ['x'], ['d']),
      makeNode('Add', ['b', 'd'], ['c']),
    ],
    input: [makeValueInfo('x', DataType.FLOAT, [1, 8])],
    output: [makeValueInfo('c', DataType.FLOAT, [1, 8])],
  }),
  { '': 13 },
);

describe('sequential calibration plan', () => {
  it('groups tensors by depth, upstream first, into at most the groups asked for', () => {
    expect(depthGroups(model, ['a', 'b', 'd', 'c'], 2)).toEqual([
      ['a', 'd'],
      ['b', 'c'],
    ]);
    expect(depthGroups(model, ['a', 'b', 'd', 'c'], 3)).toEqual([['a'], ['d', 'b'], ['c']]);
    expect(depthGroups(model, ['a', 'b', 'd', 'c'], 10)).toEqual([['a'], ['d'], ['b'], ['c']]);
  });

  it('gathers again only tensors computed from the input by an op that computes new values (a Relu copies its quantized input; a Constant is a weight)', () => {
    expect(computedTensors(model, ['a', 'b', 'd', 'c'])).toEqual(['b', 'd', 'c']);
    const withConstant = {
      ...model,
      graph: {
        ...model.graph!,
        node: [makeNode('Constant', [], ['k']), makeNode('Neg', ['k'], ['nk']), ...model.graph!.node],
      },
    };
    expect(computedTensors(withConstant, ['k', 'nk', 'a', 'b', 'd', 'c'])).toEqual(['b', 'd', 'c']);
  });

  it('reads each tensor before its own quantization where the quantized graph mixes values, graph outputs included', () => {
    // x → MatMul → m → Relu → r → MatMul → y (output)
    const w = makeTensor(
      'w',
      DataType.FLOAT,
      [8, 8],
      new Float32Array(64).map((_, i) => ((i % 7) - 3) / 8),
    );
    const chain = makeModel(
      makeGraph({
        node: [
          makeNode('MatMul', ['x', 'w'], ['m']),
          makeNode('Relu', ['m'], ['r']),
          makeNode('MatMul', ['r', 'w'], ['y']),
        ],
        input: [makeValueInfo('x', DataType.FLOAT, [1, 8])],
        output: [makeValueInfo('y', DataType.FLOAT, [1, 8])],
        initializer: [w],
      }),
      { '': 13 },
    );
    const r = { min: -1, max: 1 };
    const quantized = quantizeModel(chain, new Map(['x', 'm', 'r', 'y'].map((t) => [t, r])), getPreset('A8W8')).model;
    const readout = quantizedReadout(quantized, ['m', 'r', 'y', 'gone']);
    expect(readout.get('m')).toBe('m');
    expect(readout.has('r')).toBe(false); // a copy of quantized values: spikes on m's grid
    const y = readout.get('y')!;
    expect(y).not.toBe('y'); // the graph output's name is its dequantized value
    expect(quantized.graph!.node.find((n) => n.output.includes(y))!.op_type).toBe('MatMul');
    expect(readout.has('gone')).toBe(false);
  });
});
