/**
 * prepare() as the quantizer sees it: the steps in order, one composed node-origin record from the
 * prepared model back to the user's nodes, ids carried over, and the report's sentences.
 */
import { describe, expect, it } from 'vitest';
import { assignNodeIds, floatAttribute, makeNode, type NodeProto } from '../onnx/index.ts';
import { tensorAttribute } from './attributes.ts';
import { compareRuns, f32, floatIO, smallModel } from '../../../tests/helpers/smallModels.ts';
import { carryNodeIds, composeOrigins, OriginRecorder } from './nodeOrigin.ts';
import { prepare } from './prepare.ts';

const C = 2;
/** Constant → Conv → BatchNormalization → Softmax(axis=1, rank 4) at opset 11, IR 3-style inputs. */
function model() {
  const value = tensorAttribute('value', f32('', [C], [0.5, -0.5]));
  return smallModel({
    nodes: [
      makeNode('Constant', [], ['cb'], 'bias_const', [value]),
      makeNode('Conv', ['x', 'w', 'cb'], ['c'], 'conv'),
      makeNode('BatchNormalization', ['c', 'g', 'b', 'm', 'v'], ['n'], 'bn', [floatAttribute('epsilon', 1e-5)]),
      makeNode('Softmax', ['n'], ['y']),
    ],
    inputs: [floatIO('x', [1, 1, 3, 3]), floatIO('w', [C, 1, 1, 1])],
    outputs: [floatIO('y', [1, C, 3, 3])],
    initializers: [
      f32('w', [C, 1, 1, 1], [1, 2]),
      f32('g', [C], [1, 2]),
      f32('b', [C], [0, 1]),
      f32('m', [C], [0.1, 0.2]),
      f32('v', [C], [1, 0.5]),
    ],
    opset: 9,
    ir: 4,
  });
}

describe('prepare', () => {
  it('runs constants → initializer inputs → BatchNormalization folding → opset, and says what it did', async () => {
    const original = model();
    const { model: out, summary } = prepare(original, { targetOpset: 13 });
    expect(out.graph!.node.map((n) => n.op_type)).toEqual(['Conv', 'Shape', 'Flatten', 'Softmax', 'Reshape']);
    expect(out.graph!.input.map((v) => v.name)).toEqual(['x']);
    expect(summary.actions).toEqual([
      'moved 1 Constant node to initializers',
      'removed 1 initializer from the graph inputs',
      'folded 1 BatchNormalization into Conv',
      'raised opset 9 → 13: Softmax ×1 spelled out as Flatten → op → Reshape (axis 1 of rank 4), 1 node unchanged',
      'raised IR version 4 → 7',
    ]);
    for (const d of await compareRuns(original, out)) expect(d.relative).toBeLessThanOrEqual(1e-5);
  });

  it('maps every prepared node to the user node it comes from, and records what was absorbed', () => {
    const original = model();
    const [constant, conv, bn, softmax] = original.graph!.node;
    const { model: out, origin } = prepare(original, { targetOpset: 13 });
    const [folded, shape, flatten, sm, reshape] = out.graph!.node;
    expect(origin.source.get(folded)).toBe(conv);
    for (const n of [shape, flatten, sm, reshape]) expect(origin.source.get(n)).toBe(softmax);
    expect([shape, flatten, reshape].every((n) => origin.helpers.has(n))).toBe(true);
    expect(origin.helpers.has(sm)).toBe(false);
    expect(origin.absorbed.get(bn)).toBe(conv);
    expect(origin.absorbed.get(constant)).toBeNull();
  });

  it('carries node ids: continuations keep the user id, helpers get <id>/<OpType>', () => {
    const original = model();
    const ids = assignNodeIds(original.graph!.node);
    expect(ids).toEqual(['bias_const', 'conv', 'bn', 'Softmax_3']);
    const { model: out, origin } = prepare(original, { targetOpset: 13 });
    expect(carryNodeIds(original.graph!.node, ids, out.graph!.node, origin)).toEqual([
      'conv',
      'Softmax_3/Shape',
      'Softmax_3/Flatten',
      'Softmax_3',
      'Softmax_3/Reshape',
    ]);
  });

  it('can skip folding, and without a target keeps the opset', () => {
    const { model: out, summary } = prepare(model(), { foldBatchNorm: false });
    expect(out.graph!.node.map((n) => n.op_type)).toEqual(['Conv', 'BatchNormalization', 'Softmax']);
    expect(summary.opset).toEqual({ from: 9, to: 9 });
    expect(summary.batchNormsFolded).toEqual({});
  });
});

describe('composeOrigins', () => {
  const n = (name: string): NodeProto => makeNode('Relu', [], [], name);

  it('chains sources, keeps helpers helpers, and maps absorbed nodes back to the first model', () => {
    const [a1, a2, a3] = [n('a1'), n('a2'), n('a3')];
    const b1 = n('b1');
    const first = new OriginRecorder();
    first.keep(b1, a1);
    first.keep(a2);
    first.absorb(a3, a1);
    const [c1, c2] = [n('c1'), n('c2')];
    const second = new OriginRecorder();
    second.keep(c1, b1);
    second.helper(c2, b1);
    second.absorb(a2, b1);
    const composed = composeOrigins(first.finish(), second.finish());
    expect(composed.source.get(c1)).toBe(a1);
    expect(composed.source.get(c2)).toBe(a1);
    expect(composed.helpers.has(c2)).toBe(true);
    expect(composed.absorbed.get(a3)).toBe(a1);
    expect(composed.absorbed.get(a2)).toBe(a1);
  });
});
