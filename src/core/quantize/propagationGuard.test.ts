import { describe, expect, it } from 'vitest';
import { DataType, intAttribute, makeGraph, makeNode, makeTensor, makeValueInfo } from '../onnx/index.ts';
import { closePropagationChains } from './propagationGuard.ts';

/** x → Q/DQ (scalar scale `s`, per-channel `sc`) → Slice → Squeeze → Exp (float), and a Transpose already followed by a Q. */
function graph() {
  const init = [
    makeTensor('s', DataType.FLOAT, [], new Float32Array([0.1])),
    makeTensor('zp', DataType.INT8, [], new Int8Array([0])),
    makeTensor('sc', DataType.FLOAT, [2], new Float32Array([0.1, 0.2])),
    makeTensor('starts', DataType.INT64, [1], new BigInt64Array([0n])),
  ];
  const node = [
    makeNode('QuantizeLinear', ['x', 's', 'zp'], ['xq']),
    makeNode('DequantizeLinear', ['xq', 's', 'zp'], ['xd']),
    makeNode('Slice', ['xd', 'starts', 'starts', 'starts'], ['sl'], 'slice'),
    makeNode('Squeeze', ['sl'], ['sq'], 'squeeze'),
    makeNode('Exp', ['sq'], ['y'], 'exp'),
    makeNode('DequantizeLinear', ['wq', 'sc'], ['wd'], '', [intAttribute('axis', 0)]),
    makeNode('Reshape', ['wd', 'starts'], ['wr'], 'reshape'),
    makeNode('Exp', ['wr'], ['z'], 'exp2'),
    makeNode('Transpose', ['xd'], ['t'], 'transpose'),
    makeNode('QuantizeLinear', ['t', 's', 'zp'], ['tq']),
  ];
  return makeGraph({
    node,
    initializer: init,
    input: [makeValueInfo('x', DataType.FLOAT, [2])],
    output: [
      makeValueInfo('y', DataType.FLOAT),
      makeValueInfo('z', DataType.FLOAT),
      makeValueInfo('tq', DataType.INT8),
    ],
  });
}

describe('closePropagationChains', () => {
  it("puts a pair with the moved DequantizeLinear's scale and zero point after each data-movement op left without one, chain by chain", () => {
    const g = graph();
    const nodes = closePropagationChains(g.node, g, []);
    const byName = new Map(nodes.map((n) => [n.name, n]));
    // Slice, then Squeeze (which now reads the Slice's new pair): each followed by Q/DQ on s/zp; Exp reads the last one.
    expect(byName.get('sl_QuantizeLinear')!.input).toEqual(['sl', 's', 'zp']);
    expect(byName.get('squeeze')!.input).toEqual(['sl_DequantizeLinear_Output']);
    expect(byName.get('sq_QuantizeLinear')!.input).toEqual(['sq', 's', 'zp']);
    expect(byName.get('exp')!.input).toEqual(['sq_DequantizeLinear_Output']);
    // In order: each pair right after its op.
    const order = nodes.map((n) => n.name);
    expect(order.indexOf('sl_QuantizeLinear')).toBe(order.indexOf('slice') + 1);
    expect(order.indexOf('sq_DequantizeLinear')).toBeLessThan(order.indexOf('exp'));
    // A per-channel DequantizeLinear is not propagated by onnxruntime: left alone; so is an op already followed by a Q.
    expect(byName.get('exp2')!.input).toEqual(['wr']);
    expect(nodes.filter((n) => n.input[0] === 't')).toHaveLength(1);
    expect(nodes).toHaveLength(g.node.length + 4);
  });
});
