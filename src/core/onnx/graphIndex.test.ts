import { describe, expect, it } from 'vitest';
import {
  DataType,
  graphAttribute,
  intsAttribute,
  makeGraph,
  makeModel,
  makeNode,
  makeValueInfo,
  tensorAttribute,
} from './model.ts';
import { makeTensor } from './tensorData.ts';
import { buildGraphIndex, weightOf } from './graphIndex.ts';
import { assignNodeIds } from './nodeIds.ts';
import { decode } from './decode.ts';
import { encode } from './encode.ts';
import { ExternalDataError, InvalidModelError } from './errors.ts';

const f32 = (name: string, shape?: (number | string)[]) => makeValueInfo(name, DataType.FLOAT, shape);

describe('graph index', () => {
  it('orders a graph stored out of order, keeping file order where it can', () => {
    // Stored as: c (needs b), a (needs x), b (needs a), d (needs x).
    const nodes = [
      makeNode('Relu', ['b'], ['c'], 'c'),
      makeNode('Relu', ['x'], ['a'], 'a'),
      makeNode('Relu', ['a'], ['b'], 'b'),
      makeNode('Relu', ['x'], ['d'], 'd'),
    ];
    const index = buildGraphIndex(makeGraph({ node: nodes, input: [f32('x')], output: [f32('c'), f32('d')] }));
    expect(Array.from(index.order, (i) => index.ids[i])).toEqual(['a', 'b', 'c', 'd']);
    expect(index.producer.get('b')).toBe(2);
    expect(index.consumers.get('x')).toEqual([1, 3]);
  });

  it('finds weights in initializers, initializers listed as inputs, and Constant nodes', () => {
    const w = makeTensor('w', DataType.FLOAT, [2], Float32Array.of(1, 2));
    const constant = makeNode('Constant', [], ['k'], '', [
      tensorAttribute('value', makeTensor('', DataType.FLOAT, [1], Float32Array.of(3))),
    ]);
    const graph = makeGraph({
      node: [constant, makeNode('Mul', ['x', 'w'], ['y']), makeNode('Add', ['y', 'k'], ['z'])],
      input: [f32('x', [2]), f32('w', [2])],
      output: [f32('z')],
      initializer: [w],
    });
    const index = buildGraphIndex(graph);
    expect(index.inputs.map((v) => v.name)).toEqual(['x']);
    expect(weightOf(index, 'w')).toBe(w);
    expect(Array.from(new Float32Array(weightOf(index, 'k')!.raw_data!.slice().buffer))).toEqual([3]);
  });

  it('counts outer-scope names a subgraph reads as inputs of its node', () => {
    const body = makeGraph({ node: [makeNode('Identity', ['outer'], ['r'])], input: [], output: [f32('r')] });
    const ifNode = makeNode('If', ['cond'], ['o'], 'if', [
      graphAttribute('then_branch', body),
      graphAttribute('else_branch', body),
    ]);
    const graph = makeGraph({
      node: [ifNode, makeNode('Relu', ['x'], ['outer'], 'producer')],
      input: [f32('x'), makeValueInfo('cond', DataType.BOOL)],
      output: [f32('o')],
    });
    const index = buildGraphIndex(graph);
    expect(Array.from(index.order, (i) => index.ids[i])).toEqual(['producer', 'if']);
  });

  it('names a cycle instead of looping', () => {
    const graph = makeGraph({
      node: [makeNode('Relu', ['b'], ['a'], 'n1'), makeNode('Relu', ['a'], ['b'], 'n2')],
      input: [],
      output: [f32('a')],
    });
    expect(() => buildGraphIndex(graph)).toThrow(InvalidModelError);
  });
});

describe('stable node ids', () => {
  it('uses unique names, and OpType_position for unnamed or repeated ones', () => {
    const ids = assignNodeIds([
      makeNode('Conv', [], [], 'stem'),
      makeNode('Relu', [], []),
      makeNode('Add', [], [], 'dup'),
      makeNode('Add', [], [], 'dup'),
      makeNode('Mul', [], [], 'Relu_1'), // a real name that looks like a generated id
    ]);
    expect(ids).toEqual(['stem', 'Relu_1_2', 'Add_2', 'Add_3', 'Relu_1']);
  });
  it('gives the same ids to the same file every time', () => {
    const nodes = [makeNode('Conv', [], []), makeNode('Conv', [], [])];
    expect(assignNodeIds(nodes)).toEqual(assignNodeIds(nodes));
  });
});

describe('external data', () => {
  function externalModel() {
    const t = makeTensor('w', DataType.FLOAT, [2], Float32Array.of(0, 0));
    t.raw_data = undefined;
    t.data_location = 1;
    t.external_data = [
      { key: 'location', value: 'weights.bin' },
      { key: 'offset', value: '4' },
      { key: 'length', value: '8' },
    ];
    const graph = makeGraph({
      node: [makeNode('Add', ['x', 'w'], ['y'])],
      input: [f32('x', [2])],
      output: [f32('y')],
      initializer: [t],
    });
    return encode(makeModel(graph));
  }
  it('reads a tensor from the data file dropped with the model', () => {
    const file = new Uint8Array(12);
    new Float32Array(file.buffer, 4, 2).set([1.5, -2.5]);
    const model = decode(externalModel(), { externalData: new Map([['weights.bin', file]]) });
    const w = model.graph!.initializer[0];
    expect(w.data_location).toBe(0);
    expect(Array.from(new Float32Array(w.raw_data!.slice().buffer))).toEqual([1.5, -2.5]);
  });
  it('says which file is missing, and when it is too short', () => {
    expect(() => decode(externalModel())).toThrow(ExternalDataError);
    expect(() => decode(externalModel())).toThrow(/"weights.bin", which was not given/);
    expect(() => decode(externalModel(), { externalData: new Map([['weights.bin', new Uint8Array(6)]]) })).toThrow(
      /truncated/,
    );
  });
});

describe('Constant nodes', () => {
  it('keep INT64_MAX in value_ints (decoded as 2^63) instead of wrapping it to INT64_MIN', async () => {
    const { constantNodeTensor } = await import('./constantNode.ts');
    const { readTensor } = await import('./tensorData.ts');
    const node = makeNode('Constant', [], ['k'], '', [intsAttribute('value_ints', [2 ** 63, -5])]);
    expect(Array.from(readTensor(constantNodeTensor(node)!) as BigInt64Array)).toEqual([2n ** 63n - 1n, -5n]);
  });
});
