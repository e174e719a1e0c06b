import { describe, expect, it } from 'vitest';
import {
  buildGraphIndex,
  DataType,
  decode,
  makeGraph,
  makeModel,
  makeNode,
  makeTensor,
  makeValueInfo,
  type GraphProto,
  type ModelProto,
} from '../onnx/index.ts';
import { upgradeOpset } from '../prepare/upgradeOpset.ts';
import { quantizedFixture } from '../../../tests/helpers/quantizedFixtures.ts';
import { readModel } from '../../../tests/helpers/fixtures.ts';
import { mapNodes } from './nodeMapping.ts';
import { compareGraphs, compareViews } from './comparison.ts';
import { buildGraphView } from './graphView.ts';
import { weightlessGraph } from './structure.ts';

const indexOf = (m: ModelProto) => buildGraphIndex(weightlessGraph(m.graph!));
const float = (name: string) => decode(readModel(name));

/** Every node and tensor renamed (inputs and outputs too): only the structure is left in common. */
function renamed(model: ModelProto): ModelProto {
  const graph = model.graph!;
  const r = (t: string) => (t ? `renamed/${t}` : t);
  const g: GraphProto = {
    ...graph,
    node: graph.node.map((n, k) => ({
      ...n,
      name: `node${k * 7 + 3}`,
      input: n.input.map(r),
      output: n.output.map(r),
    })),
    initializer: graph.initializer.map((t) => ({ ...t, name: r(t.name ?? '') })),
    input: graph.input.map((v) => ({ ...v, name: r(v.name ?? '') })),
    output: graph.output.map((v) => ({ ...v, name: r(v.name ?? '') })),
    value_info: [],
  };
  return { ...model, graph: g };
}

describe('node mapping between two models', () => {
  it('float UltraFace ↔ its U8S8 quantization: Q/DQ inserted, BatchNormalization folded; every other node maps to itself', () => {
    const a = indexOf(float('ultraface-rfb-320.onnx'));
    const b = indexOf(quantizedFixture('ultraface-rfb-320.onnx'));
    const m = mapNodes(a, b);
    expect(m.related).toBe(true);
    a.nodes.forEach((node, i) => {
      if (node.op_type === 'BatchNormalization') {
        expect(m.statusA[i]).toBe('merged');
        expect(b.nodes[m.aToB[i]].op_type).toBe('Conv');
      } else if (node.op_type !== 'Constant') {
        expect(m.aToB[i], a.ids[i]).toBeGreaterThanOrEqual(0);
        expect(b.ids[m.aToB[i]]).toBe(a.ids[i]);
      }
    });
    expect(m.counts.merged).toBe(35); // the fixture's 35 unfused Conv → BatchNormalization
    expect(m.counts.removed).toBe(0);
    expect(m.counts.added).toBe(0);
    // A Conv that absorbed a BatchNormalization is marked changed on both sides.
    const conv = a.ids.indexOf('Conv_0' as never);
    expect(m.statusA[conv]).toBe('changed');
  });

  it('opset upgrade (YOLOX 11 → 13): every node maps, Resize included', () => {
    const model = float('yolox-nano.onnx');
    const a = indexOf(model);
    const b = indexOf(upgradeOpset(model, 13).model);
    const m = mapNodes(a, b);
    expect(m.counts.removed).toBe(0);
    expect(m.common).toBe(a.nodes.filter((n) => n.op_type !== 'Constant').length);
    const resize = a.nodes.findIndex((n) => n.op_type === 'Resize');
    expect(b.nodes[m.aToB[resize]].op_type).toBe('Resize');
  });

  it('renamed nodes and tensors: matched by structure alone, each to its own counterpart', () => {
    const model = float('ultraface-rfb-320.onnx');
    const a = indexOf(model);
    const b = indexOf(renamed(model));
    const m = mapNodes(a, b);
    expect(m.counts.removed).toBe(0);
    expect(m.kindA.filter((k) => k === 'structure').length).toBe(m.common);
    // Node k of the copy is node k of the original.
    a.nodes.forEach((n, i) => {
      if (n.op_type !== 'Constant') expect(m.aToB[i], a.ids[i]).toBe(i);
    });
  });

  it('float YOLOX ↔ its per-channel quantization (opset raised, Q/DQ inserted): each Conv finds its counterpart', () => {
    const a = indexOf(float('yolox-nano.onnx'));
    const b = indexOf(quantizedFixture('yolox-nano.onnx', { perChannel: true }));
    const m = mapNodes(a, b);
    expect(m.related).toBe(true);
    const convs = a.nodes.map((n, i) => (n.op_type === 'Conv' ? i : -1)).filter((i) => i >= 0);
    for (const i of convs) expect(b.nodes[m.aToB[i]]?.op_type, a.ids[i]).toBe('Conv');
    expect(m.counts.removed).toBe(0);
  });

  it('an affine block (Mul, Add by constants) folded into its Conv: merged, and what follows still maps', () => {
    const c = (name: string, dims: number[]) =>
      makeTensor(name, DataType.FLOAT, dims, new Float32Array(dims.reduce((x, d) => x * d, 1)).fill(0.5));
    const io = {
      input: [makeValueInfo('x', DataType.FLOAT, [1, 2, 4, 4])],
      output: [makeValueInfo('y', DataType.FLOAT, [1, 2, 4, 4])],
    };
    const a = buildGraphIndex(
      makeGraph({
        ...io,
        node: [
          makeNode('Conv', ['x', 'w'], ['c'], 'conv'),
          makeNode('Mul', ['c', 's'], ['m'], 'scale'),
          makeNode('Add', ['m', 't'], ['a'], 'shift'),
          makeNode('Relu', ['a'], ['y'], 'relu'),
        ],
        initializer: [c('w', [2, 2, 1, 1]), c('s', [1, 2, 1, 1]), c('t', [1, 2, 1, 1])],
      }),
    );
    const b = buildGraphIndex(
      makeGraph({
        ...io,
        node: [makeNode('Conv', ['x', 'w2', 'b2'], ['c2'], 'conv_folded'), makeNode('Relu', ['c2'], ['y'], 'act')],
        initializer: [c('w2', [2, 2, 1, 1]), c('b2', [2])],
      }),
    );
    const m = mapNodes(a, b);
    expect(m.statusA).toEqual(['changed', 'merged', 'merged', 'same']);
    expect([...m.aToB]).toEqual([0, 0, 0, 1]);
    expect(m.statusB).toEqual(['changed', 'same']);
  });

  it("ONNX Runtime's quantize_dynamic form: each ConvInteger is its Conv, its DynamicQuantizeLinear and float rescale are not nodes; by name and by structure", () => {
    const io = {
      input: [makeValueInfo('x', DataType.FLOAT, [1, 2, 4, 4])],
      output: [makeValueInfo('y', DataType.FLOAT, [1, 2, 4, 4])],
    };
    const f = (name: string, dims: number[]) =>
      makeTensor(name, DataType.FLOAT, dims, new Float32Array(dims.reduce((x, d) => x * d, 1)).fill(0.5));
    const float = makeModel(
      makeGraph({
        ...io,
        node: [makeNode('Conv', ['x', 'w', 'bias'], ['c'], 'conv'), makeNode('Relu', ['c'], ['y'], 'relu')],
        initializer: [f('w', [2, 2, 1, 1]), f('bias', [2])],
      }),
    );
    // As quantize_dynamic writes it: the activation quantized each run, the int32 result cast, rescaled and biased,
    // the bias reshaped by a node of its own, the last Add writing the Conv's own output name.
    const dynamic = makeModel(
      makeGraph({
        ...io,
        node: [
          makeNode('DynamicQuantizeLinear', ['x'], ['xq', 'xs', 'xzp'], 'x_QuantizeLinear'),
          makeNode('Mul', ['xs', 'w_scale'], ['scales'], 'conv_quant_scales_mul'),
          makeNode('ConvInteger', ['xq', 'w_quantized', 'xzp', 'w_zero_point'], ['ci'], 'conv_quant'),
          makeNode('Cast', ['ci'], ['cf'], 'conv_output_quantized_cast'),
          makeNode('Mul', ['cf', 'scales'], ['m'], 'conv_output_scale_mul'),
          makeNode('Reshape', ['bias', 'bias_shape'], ['bias_r'], 'Reshape_0'),
          makeNode('Add', ['m', 'bias_r'], ['c'], 'conv_output_bias_add'),
          makeNode('Relu', ['c'], ['y'], 'relu'),
        ],
        initializer: [
          makeTensor('w_quantized', DataType.UINT8, [2, 2, 1, 1], Uint8Array.of(1, 2, 3, 4)),
          makeTensor('w_zero_point', DataType.UINT8, [], Uint8Array.of(128)),
          f('w_scale', []),
          f('bias', [2]),
          makeTensor('bias_shape', DataType.INT64, [4], BigInt64Array.of(1n, 2n, 1n, 1n)),
        ],
      }),
    );
    for (const b of [dynamic, renamed(dynamic)]) {
      const m = mapNodes(indexOf(float), indexOf(b));
      // The Conv is its ConvInteger (changed: another op), the Relu after the rescale maps to itself.
      expect(m.statusA).toEqual(['changed', 'same']);
      expect([...m.aToB]).toEqual([2, 7]);
      expect(m.statusB).toEqual(['ignored', 'ignored', 'changed', 'ignored', 'ignored', 'ignored', 'ignored', 'same']);
      expect(m.counts).toMatchObject({ removed: 0, added: 0 });
      // And the other way round: the dynamic model first.
      const back = mapNodes(indexOf(b), indexOf(float));
      expect([...back.bToA]).toEqual([2, 7]);
      expect(back.counts).toMatchObject({ removed: 0, added: 0 });
    }
    // On the split view's panes the quantization's own nodes are folded away, as Q/DQ pairs are: the dynamic pane
    // draws x → ConvInteger (the edge labelled by its run-time quantization) → Relu → y.
    const c = compareGraphs({ name: 'float', graph: float.graph! }, { name: 'dynamic', graph: dynamic.graph! });
    const b = c.views.b;
    expect(b.boxes.map((box, k) => [box.title, c.marks.b[k]])).toEqual([
      ['x', 'io'],
      ['ConvInteger', 'changed'],
      ['Relu', 'same'],
      ['y', 'io'],
    ]);
    expect(b.edges.map((e) => [b.boxes[e.source].title, b.boxes[e.target].title, e.tensor])).toEqual([
      ['x', 'ConvInteger', 'xq'],
      ['ConvInteger', 'Relu', 'c'],
      ['Relu', 'y', 'y'],
    ]);
    expect(b.edges[0].label).toBe('uint8 · scale and zp computed each run');
    // Shown as nodes ("Q/DQ as nodes"), they are the quantization's own, not "the same on both sides".
    const shown = compareViews(buildGraphView(indexOf(float)), buildGraphView(indexOf(dynamic), { showQdq: true }), {
      a: 'float',
      b: 'dynamic',
    });
    const marks = Object.fromEntries(shown.views.b.boxes.map((box, k) => [box.title, shown.marks.b[k]]));
    expect(marks).toMatchObject({
      DynamicQuantizeLinear: 'quantization',
      ConvInteger: 'changed',
      Cast: 'quantization',
      Mul: 'quantization',
      Reshape: 'quantization',
      Add: 'quantization',
      Relu: 'same',
    });
    expect(c.marks.a).toEqual(['io', 'changed', 'same', 'io']);
  });

  it('two unrelated models share no nodes', () => {
    const m = mapNodes(indexOf(float('mnist.onnx')), indexOf(float('ultraface-rfb-320.onnx')));
    expect(m.related).toBe(false);
    const n = mapNodes(indexOf(float('yolox-nano.onnx')), indexOf(float('super-resolution-10.onnx')));
    expect(n.related).toBe(false);
  });
});
