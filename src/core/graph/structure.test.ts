import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { buildGraphIndex, DataType, decode, makeGraph, makeNode, makeTensor, makeValueInfo } from '../onnx/index.ts';
import { SMALL_TENSOR_BYTES, weightlessGraph } from './structure.ts';
import { tensorStatistics } from './tensorStatistics.ts';

function convWithWeights() {
  const weight = makeTensor(
    'w',
    DataType.FLOAT,
    [4, 3, 3, 3],
    Float32Array.from({ length: 108 }, (_, i) => i - 54),
  );
  const scale = makeTensor('s', DataType.FLOAT, [], Float32Array.of(0.1));
  return makeGraph({
    node: [
      makeNode('Conv', ['x', 'w'], ['c']),
      makeNode('Mul', ['c', 's'], ['y']),
      makeNode('Relu', ['y'], ['z'], 'relu'),
    ],
    input: [makeValueInfo('x', DataType.FLOAT, [1, 3, 8, 8])],
    output: [makeValueInfo('z', DataType.FLOAT, [1, 4, 6, 6])],
    initializer: [weight, scale],
  });
}

describe('weight-less structural copy', () => {
  it('keeps names, types and dims, drops the bytes of large weights and keeps small ones', () => {
    const copy = weightlessGraph(convWithWeights());
    const [w, s] = copy.initializer;
    expect(w).toMatchObject({ name: 'w', data_type: DataType.FLOAT, dims: [4, 3, 3, 3] });
    expect(w.raw_data).toBeUndefined();
    expect(s.raw_data?.byteLength).toBe(4);
    expect(4).toBeLessThanOrEqual(SMALL_TENSOR_BYTES);
  });

  it('holds no view of the model file: string attributes and small tensors are copied out of it', () => {
    const bytes = new Uint8Array(
      fs.readFileSync(path.resolve(import.meta.dirname, '../../../../shared/fixtures/models/mnist.onnx')),
    );
    const copy = weightlessGraph(decode(bytes).graph!);
    const views: Uint8Array[] = [];
    const visit = (value: unknown) => {
      if (value instanceof Uint8Array) views.push(value);
      else if (value && typeof value === 'object') Object.values(value).forEach(visit);
    };
    visit(copy);
    expect(views.some((v) => v.byteLength > 0)).toBe(true); // MNIST's Conv auto_pad strings, its small shape tensor
    expect(views.filter((v) => v.buffer === bytes.buffer)).toEqual([]);
  });

  it('gives the same stable node ids and adjacency as the full graph (unnamed nodes too)', () => {
    const full = buildGraphIndex(convWithWeights());
    const copy = buildGraphIndex(structuredClone(weightlessGraph(convWithWeights())));
    expect(copy.ids).toEqual(['Conv_0', 'Mul_1', 'relu']);
    expect(copy.ids).toEqual(full.ids);
    expect(Array.from(copy.succ)).toEqual(Array.from(full.succ));
    expect([...copy.initializers.keys()]).toEqual(['w', 's']);
  });
});

describe('weight statistics', () => {
  it('min, max, mean, std, zeros and a histogram that counts every value', () => {
    const t = makeTensor('w', DataType.FLOAT, [5], Float32Array.of(-2, 0, 0, 2, 5));
    const s = tensorStatistics(t, 7);
    expect(s).toMatchObject({
      count: 5,
      min: -2,
      max: 5,
      mean: 1,
      zeros: 2,
      nonFinite: 0,
      dims: [5],
      elementType: 'float32',
    });
    expect(s.std).toBeCloseTo(Math.sqrt((9 + 1 + 1 + 1 + 16) / 5), 6);
    expect(s.histogram).toEqual([1, 0, 2, 0, 1, 0, 1]);
  });

  it('reads integer weights as numbers and leaves non-finite values out of the range', () => {
    expect(tensorStatistics(makeTensor('i', DataType.INT8, [3], Int8Array.of(-128, 0, 127))).max).toBe(127);
    const s = tensorStatistics(makeTensor('f', DataType.FLOAT, [3], Float32Array.of(1, NaN, Infinity)));
    expect(s).toMatchObject({ min: 1, max: 1, nonFinite: 2 });
  });
});

describe('the structure in parts, the index in slices', () => {
  it("YOLOX-nano's structure in parts of 50 nodes joins back to the whole; the sliced index equals the one-go index", async () => {
    const { buildGraphIndexInSlices } = await import('../onnx/graphIndex.ts');
    const { joinStructureParts, structurePart } = await import('./structure.ts');
    const file = path.resolve(import.meta.dirname, '../../../../shared/fixtures/models/yolox-nano.onnx');
    const whole = weightlessGraph(decode(new Uint8Array(fs.readFileSync(file))).graph!);
    const first = structurePart(whole, 0, 50);
    expect(first.parts).toBe(Math.ceil(whole.node.length / 50));
    const parts = [first.graph];
    for (let k = 1; k < first.parts; k++) parts.push(structuredClone(structurePart(whole, k, 50).graph));
    const joined = joinStructureParts(parts);
    expect(joined).toEqual(whole);
    // A part carries no empty list of a node, an attribute or a tensor (the join gives them back).
    const emptyLists = (xs: object[]) =>
      xs.flatMap((x) => Object.values(x)).filter((v) => Array.isArray(v) && v.length === 0).length;
    const second = structuredClone(structurePart(whole, 1, 50).graph);
    expect(second.node.length).toBeGreaterThan(0);
    expect(emptyLists(second.node) + emptyLists(second.node.flatMap((n) => n.attribute ?? []))).toBe(0);
    expect(emptyLists(second.initializer)).toBe(0);
    expect(emptyLists(whole.node.slice(50, 100))).toBeGreaterThan(0);
    let pauses = 0;
    const sliced = await buildGraphIndexInSlices(joined, async () => void pauses++, 50);
    expect(pauses).toBeGreaterThan(2 * (whole.node.length / 50) - 2);
    const once = buildGraphIndex(whole);
    expect(sliced.ids).toEqual(once.ids);
    expect([...sliced.order]).toEqual([...once.order]);
    expect([...sliced.succ]).toEqual([...once.succ]);
    expect([...sliced.consumers]).toEqual([...once.consumers]);
  });
});
