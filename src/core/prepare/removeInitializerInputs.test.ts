import { describe, expect, it } from 'vitest';
import { decode, makeNode } from '../onnx/index.ts';
import { compareRuns, f32, floatIO, smallModel } from '../../../tests/helpers/smallModels.ts';
import { readModel } from '../../../tests/helpers/fixtures.ts';
import { removeInitializerInputs } from './removeInitializerInputs.ts';

describe('removeInitializerInputs', () => {
  it('removes graph inputs that name initializers and raises IR 3 to 4 (mnist)', async () => {
    const model = decode(readModel('mnist.onnx'));
    const { model: out, removed, origin } = removeInitializerInputs(model);
    expect(removed).toBe(8);
    expect(out.ir_version).toBe(4);
    expect(out.graph!.input.map((v) => v.name)).toEqual(['Input3']);
    expect(out.graph!.node).toBe(model.graph!.node);
    expect(model.graph!.input.length).toBe(9);
    for (const n of out.graph!.node) expect(origin.source.get(n)).toBe(n);
    for (const d of await compareRuns(model, out)) expect(d.identical).toBe(true);
  });

  it('changes nothing, IR version included, when no input is an initializer', () => {
    const model = smallModel({
      nodes: [makeNode('Add', ['x', 'b'], ['y'])],
      inputs: [floatIO('x', [2])],
      outputs: [floatIO('y')],
      initializers: [f32('b', [2], [1, 2])],
      opset: 13,
      ir: 7,
    });
    const { model: out, removed } = removeInitializerInputs(model);
    expect(removed).toBe(0);
    expect(out.graph).toBe(model.graph);
    expect(out.ir_version).toBe(7);
  });
});
