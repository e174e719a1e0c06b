import { describe, expect, it } from 'vitest';
import {
  AttributeType,
  DataType,
  floatAttribute,
  intAttribute,
  makeGraph,
  makeNode,
  makeTensor,
  readTensor,
  type AttributeProto,
} from '../onnx/index.ts';
import { compareRuns, f32, floatIO, smallModel } from '../../../tests/helpers/smallModels.ts';
import { floatsAttribute, graphAttribute, intsAttribute, tensorAttribute } from './attributes.ts';
import { constantsToInitializers } from './constantsToInitializers.ts';

const tensorAttr = (t: ReturnType<typeof f32>): AttributeProto => tensorAttribute('value', t);
const constant = (out: string, attr: AttributeProto) => makeNode('Constant', [], [out], '', [attr]);

describe('constantsToInitializers', () => {
  it('turns each dense Constant into an initializer named after its output; the rest of the graph is untouched', async () => {
    const model = smallModel({
      nodes: [
        constant('k', tensorAttr(f32('', [3], [1, 2, 3]))),
        constant('s', floatAttribute('value_float', 0.5)),
        makeNode('Mul', ['x', 'k'], ['m']),
        makeNode('Mul', ['m', 's'], ['y']),
      ],
      inputs: [floatIO('x', [2, 3])],
      outputs: [floatIO('y', [2, 3])],
      opset: 13,
    });
    const { model: out, origin, converted } = constantsToInitializers(model);
    expect(converted).toBe(2);
    expect(out.graph!.node.map((n) => n.op_type)).toEqual(['Mul', 'Mul']);
    expect(out.graph!.node[0]).toBe(model.graph!.node[2]);
    expect(out.graph!.initializer.map((t) => [t.name, t.dims, [...readTensor(t)]])).toEqual([
      ['k', [3], [1, 2, 3]],
      ['s', [], [0.5]],
    ]);
    expect(origin.absorbed.get(model.graph!.node[0])).toBeNull();
    expect(origin.source.get(out.graph!.node[1])).toBe(model.graph!.node[3]);
    expect(model.graph!.node[0].attribute[0].t!.name).toBe('');
    for (const d of await compareRuns(model, out)) expect(d.identical).toBe(true);
  });

  it('reads value_floats and value_ints as 1-D float32 and int64 tensors (INT64_MAX, decoded as 2**63, saturates)', () => {
    const model = smallModel({
      nodes: [
        constant('f', floatsAttribute('value_floats', [1, 2])),
        constant('i', intsAttribute('value_ints', [3, 2 ** 63])),
      ],
      inputs: [],
      outputs: [floatIO('z')],
      opset: 13,
    });
    const { model: out } = constantsToInitializers(model);
    expect(out.graph!.initializer.map((t) => [t.name, t.data_type, t.dims])).toEqual([
      ['f', DataType.FLOAT, [2]],
      ['i', DataType.INT64, [2]],
    ]);
    expect([...readTensor(out.graph!.initializer[1])]).toEqual([3n, 2n ** 63n - 1n]);
  });

  it('leaves Constants in subgraphs, Constants that are graph outputs and non-dense Constants alone', () => {
    const inner = makeGraph({
      name: 'then',
      node: [constant('in', tensorAttr(f32('', [1], [1])))],
      input: [],
      output: [floatIO('in')],
    });
    const sparse: AttributeProto = {
      ...intAttribute('sparse_value', 0),
      i: undefined,
      type: AttributeType.SPARSE_TENSOR,
      sparse_tensor: {
        values: f32('', [1], [1]),
        indices: makeTensor('', DataType.INT64, [1], BigInt64Array.of(0n)),
        dims: [2],
      },
    };
    const model = smallModel({
      nodes: [
        makeNode('If', ['c'], ['y'], '', [graphAttribute('then_branch', inner), graphAttribute('else_branch', inner)]),
        constant('out', tensorAttr(f32('', [1], [2]))),
        constant('sp', sparse),
      ],
      inputs: [],
      outputs: [floatIO('y'), floatIO('out')],
      opset: 13,
    });
    const { model: out, converted } = constantsToInitializers(model);
    expect(converted).toBe(0);
    expect(out.graph!.node).toEqual(model.graph!.node);
  });

  it('lists the new initializers as graph inputs too when the IR version is below 4', async () => {
    const model = smallModel({
      nodes: [constant('k', tensorAttr(f32('', [2], [1, 2]))), makeNode('Add', ['x', 'k'], ['y'])],
      inputs: [floatIO('x', [2])],
      outputs: [floatIO('y', [2])],
      opset: 8,
      ir: 3,
    });
    const { model: out } = constantsToInitializers(model);
    expect(out.graph!.input.map((v) => v.name)).toEqual(['x', 'k']);
    expect(out.graph!.input[1].type?.tensor_type?.shape?.dim.map((d) => d.dim_value)).toEqual([2]);
    for (const d of await compareRuns(model, out)) expect(d.identical).toBe(true);
  });
});
