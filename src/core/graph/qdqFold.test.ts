import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { buildGraphIndex, decode, DataType, makeGraph, makeNode, makeTensor, makeValueInfo } from '../onnx/index.ts';
import { quantizedFixture } from '../../../tests/helpers/quantizedFixtures.ts';
import { foldQdq, hasQdq, qdqPrecisionLabels, quantLabel } from './qdqFold.ts';
import { weightlessGraph } from './structure.ts';

const MNIST = path.resolve(import.meta.dirname, '../../../../shared/fixtures/models/mnist.onnx');
const quantizedMnist = (perChannel: boolean) => quantizedFixture('mnist.onnx', { perChannel });

describe('Q/DQ folding', () => {
  it("folds every Q → DQ pair of the studio's U8S8 MNIST onto its edge, weights onto their nodes, with the file's values", () => {
    const model = quantizedMnist(false);
    const index = buildGraphIndex(weightlessGraph(model.graph!));
    expect(hasQdq(index)).toBe(true);
    const fold = foldQdq(index);
    const qdq = index.nodes.filter((n) => n.op_type === 'QuantizeLinear' || n.op_type === 'DequantizeLinear').length;
    expect(fold.qdqNodes).toBe(qdq);
    expect([...fold.folded].filter(Boolean).length).toBe(qdq);
    // An activation edge: the scale and zero point the Q node reads in the file.
    const edge = [...fold.edges.values()][0];
    const full = buildGraphIndex(model.graph!);
    const q = full.nodes[edge.quantize];
    const scale = full.initializers.get(q.input[1])!;
    const expected = new Float32Array(scale.raw_data!.slice().buffer)[0];
    expect(edge.params.type).toBe('uint8');
    expect(edge.params.scales![0]).toBe(expected);
    expect(quantLabel(edge.params)).toMatch(/^uint8 · scale [\d.e-]+ · zp \d+$/);
    // Conv weights: int8 codes behind a DQ, per tensor; the bias int32.
    const conv = index.nodes.findIndex((n) => n.op_type === 'Conv');
    const [, w, b] = index.nodes[conv].input;
    expect(fold.weights.get(w)).toMatchObject({ params: { type: 'int8', channels: 1 }, quantizedAtRun: false });
    expect(fold.weights.get(b)?.params.type).toBe('int32');
    expect(qdqPrecisionLabels(index, fold).get(conv)).toBe('A8W8');
  });

  it('per channel: the channel count, axis and every scale', () => {
    const model = quantizedMnist(true);
    const index = buildGraphIndex(weightlessGraph(model.graph!));
    const fold = foldQdq(index);
    const conv = index.nodes.findIndex((n) => n.op_type === 'Conv');
    const weight = fold.weights.get(index.nodes[conv].input[1])!;
    expect(weight.params.channels).toBe(8); // MNIST's first Conv has 8 filters
    expect(weight.params.axis).toBe(0);
    expect(weight.params.scales).toHaveLength(8);
    expect(quantLabel(weight.params)).toMatch(/^int8 · 8 channels \(axis 0\) · scale [\d.e-]+…[\d.e-]+ · zp 0$/);
  });

  it("reads ONNX Runtime's and Quark's forms: com.microsoft int16 Q/DQ, a Q read by two DQs, a float weight behind Q → DQ", () => {
    const f = (name: string, v: number) => makeTensor(name, DataType.FLOAT, [], Float32Array.of(v));
    const graph = makeGraph({
      node: [
        makeNode('QuantizeLinear', ['x', 's', 'z16'], ['xq'], 'q', [], 'com.microsoft'),
        makeNode('DequantizeLinear', ['xq', 's', 'z16'], ['xd1'], 'dq1', [], 'com.microsoft'),
        makeNode('DequantizeLinear', ['xq', 's', 'z16'], ['xd2'], 'dq2', [], 'com.microsoft'),
        makeNode('QuantizeLinear', ['w', 'sw', 'z8'], ['wq'], 'qw'),
        makeNode('DequantizeLinear', ['wq', 'sw', 'z8'], ['wd'], 'dqw'),
        makeNode('MatMul', ['xd1', 'wd'], ['m'], 'mm'),
        makeNode('Add', ['m', 'xd2'], ['y'], 'add'),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [2, 2])],
      output: [makeValueInfo('y', DataType.FLOAT, [2, 2])],
      initializer: [
        f('s', 0.5),
        makeTensor('z16', DataType.INT16, [], Int16Array.of(3)),
        f('sw', 0.25),
        makeTensor('z8', DataType.INT8, [], Int8Array.of(0)),
        makeTensor('w', DataType.FLOAT, [2, 2], Float32Array.of(1, 2, 3, 4)),
      ],
    });
    const index = buildGraphIndex(graph);
    const fold = foldQdq(index);
    expect([...fold.folded].filter(Boolean).length).toBe(5);
    expect(quantLabel(fold.edges.get('xd1')!.params)).toBe('int16 · scale 0.5 · zp 3');
    expect(fold.edges.get('xd2')!.source).toBe('x');
    expect(fold.weights.get('wd')).toMatchObject({ codes: 'w', quantizedAtRun: true, params: { type: 'int8' } });
    const labels = qdqPrecisionLabels(index, fold);
    expect(labels.get(index.nodes.findIndex((n) => n.name === 'mm'))).toBe('A16W8');
    expect(labels.get(index.nodes.findIndex((n) => n.name === 'add'))).toBe('A16');
  });

  it("reads ONNX Runtime's dynamic and QOperator forms: ConvInteger after DynamicQuantizeLinear, QLinearConv", () => {
    const f = (name: string, v: number) => makeTensor(name, DataType.FLOAT, [], Float32Array.of(v));
    const u8 = (name: string, dims: number[], v: number[]) =>
      makeTensor(name, DataType.UINT8, dims, Uint8Array.from(v));
    const graph = makeGraph({
      node: [
        makeNode('DynamicQuantizeLinear', ['x'], ['xq', 'xs', 'xz'], 'dql'),
        makeNode('ConvInteger', ['xq', 'w', 'xz', 'wz'], ['ci'], 'conv_int'),
        makeNode('Cast', ['ci'], ['cf'], 'cast'),
        makeNode('Mul', ['xs', 'ws'], ['sm'], 'scales_mul'),
        makeNode('Mul', ['cf', 'sm'], ['y0'], 'rescale'),
        makeNode('QuantizeLinear', ['y0', 'ys', 'yz'], ['yq'], 'q'),
        makeNode('QLinearConv', ['yq', 'ys', 'yz', 'w2', 'w2s', 'w2z', 'os', 'oz'], ['o'], 'qlinear'),
      ],
      input: [makeValueInfo('x', DataType.FLOAT, [1, 1, 2, 2])],
      output: [makeValueInfo('o', DataType.UINT8, [1, 2, 2, 2])],
      initializer: [
        u8('w', [1, 1, 1, 1], [130]),
        u8('wz', [], [128]),
        f('ws', 0.0625),
        f('ys', 0.5),
        u8('yz', [], [10]),
        u8('w2', [2, 1, 1, 1], [1, 2]),
        makeTensor('w2s', DataType.FLOAT, [2], Float32Array.of(0.25, 0.125)),
        u8('w2z', [2], [0, 0]),
        f('os', 2),
        u8('oz', [], [0]),
      ],
    });
    // The page's weight-less copy keeps every integer op's scales and zero points.
    const index = buildGraphIndex(weightlessGraph(graph));
    expect(hasQdq(index)).toBe(true);
    const fold = foldQdq(index);
    expect(quantLabel(fold.edges.get('xq')!.params)).toBe('uint8 · scale and zp computed each run');
    expect(fold.edges.get('xq')!.source).toBe('x');
    expect(quantLabel(fold.weights.get('w')!.params)).toBe('uint8 · scale 0.0625 · zp 128');
    expect(quantLabel(fold.edges.get('yq')!.params)).toBe('uint8 · scale 0.5 · zp 10');
    expect(quantLabel(fold.weights.get('w2')!.params)).toBe('uint8 · 2 channels (axis 0) · scale 0.125…0.25 · zp 0');
    const labels = qdqPrecisionLabels(index, fold);
    const at = (name: string) => labels.get(index.nodes.findIndex((n) => n.name === name));
    expect(at('conv_int')).toBe('A8W8');
    expect(at('qlinear')).toBe('A8W8');
    expect(at('dql')).toBeUndefined();
    expect(at('rescale')).toBe('float');
  });

  it('a float model has nothing to fold', () => {
    const index = buildGraphIndex(decode(new Uint8Array(fs.readFileSync(MNIST))).graph!);
    expect(hasQdq(index)).toBe(false);
    expect(foldQdq(index).edges.size).toBe(0);
  });
});

describe('per-node values of a QDQ model and their export', () => {
  it("bit width, kept float and output scale by node; Model Explorer's node-data JSON keyed by output tensor", async () => {
    const { bitWidthValues, keptFloatValues, outputScaleValues, modelExplorerNodeData } =
      await import('./nodeValues.ts');
    const index = buildGraphIndex(weightlessGraph(quantizedMnist(false).graph!));
    const fold = foldQdq(index);
    const conv = index.nodes.findIndex((n) => n.op_type === 'Conv');
    const id = index.ids[conv];
    expect(bitWidthValues(index, fold).values[id]).toBe(8);
    expect(keptFloatValues(index, fold).values[id]).toBe(0);
    const scales = outputScaleValues(index, fold);
    expect(
      scales.values[id] ?? scales.values[index.ids[index.consumers.get(index.nodes[conv].output[0])![0]]],
    ).toBeGreaterThan(0);
    const json = modelExplorerNodeData(index, bitWidthValues(index, fold), 'main');
    expect(json.main.results[index.nodes[conv].output[0]]).toEqual({ value: 8 });
    expect(json.main.gradient[0]).toEqual({ stop: 0, bgColor: '#c62828' });
    expect(json.main.gradient.at(-1)!.stop).toBe(1);
    // Every key is an output tensor of the file, and JSON round-trips.
    const outputs = new Set(index.nodes.flatMap((n) => n.output));
    for (const k of Object.keys(json.main.results)) expect(outputs.has(k)).toBe(true);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });
});
