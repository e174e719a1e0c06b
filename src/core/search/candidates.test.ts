import { describe, expect, it } from 'vitest';
import { makeNode, type NodeId } from '../onnx/index.ts';
import { fewNodeIndex } from '../../../tests/helpers/graphIndex.ts';
import { valueRow } from '../../../tests/helpers/layerRow.ts';
import { rankLayers, tailSubgraph } from './candidates.ts';

// x → A → a → B → b → C → c (output 1); b → D → d (output 2); x → E → e (a dead end, no output).
const index = fewNodeIndex({
  nodes: [
    makeNode('Conv', ['x'], ['a'], 'A'),
    makeNode('Conv', ['a'], ['b'], 'B'),
    makeNode('Sigmoid', ['b'], ['c'], 'C'),
    makeNode('Exp', ['b'], ['d'], 'D'),
    makeNode('Relu', ['x'], ['e'], 'E'),
  ],
  inputs: ['x'],
  outputs: ['c', 'd'],
});
const row = (tensor: string, sqnr: number) => valueRow(tensor, sqnr);
// SQNR: a 40, b 20 (B loses 20 dB), c 15 (C loses 5), d 18 (D loses 2), e exact.
const rows = [row('x', 50), row('a', 40), row('b', 20), row('c', 15), row('d', 18), row('e', Infinity)];
const all = new Set(['A', 'B', 'C', 'D', 'E']);

describe('rankLayers', () => {
  it("by 'drop' puts first the node that adds the most error", () => {
    expect(rankLayers(rows, index, all, 'drop').map((l) => [l.node, l.drop])).toEqual([
      ['B', 20],
      ['A', 10],
      ['C', 5],
      ['D', 2],
    ]);
  });

  it("by 'sqnr' puts first the lowest SQNR, which accumulates towards the outputs", () => {
    expect(rankLayers(rows, index, all, 'sqnr').map((l) => l.node)).toEqual(['C', 'D', 'B', 'A']);
  });

  it('offers only nodes the quantizer quantized, and none whose output is exact', () => {
    expect(rankLayers(rows, index, new Set(['A', 'C', 'E'])).map((l) => l.node)).toEqual(['A', 'C']);
  });
});

describe('tailSubgraph', () => {
  it('runs from the node to the producers of every output it reaches', () => {
    expect(tailSubgraph(index, 'B' as NodeId)).toEqual({ subgraph: { starts: ['B'], ends: ['C', 'D'] }, nodes: 3 });
    expect(tailSubgraph(index, 'C' as NodeId)).toEqual({ subgraph: { starts: ['C'], ends: ['C'] }, nodes: 1 });
  });

  it('is null for a node that reaches no output, or an unknown id', () => {
    expect(tailSubgraph(index, 'E' as NodeId)).toBeNull();
    expect(tailSubgraph(index, 'nope' as NodeId)).toBeNull();
  });
});
