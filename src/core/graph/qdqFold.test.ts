import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { buildGraphIndex, decode } from '../onnx/index.ts';
import { quantizedFixture } from '../../../tests/helpers/quantizedFixtures.ts';
import { integerOpsGraph } from '../../../tests/helpers/integerOpsGraph.ts';
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
    const graph = integerOpsGraph();
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
