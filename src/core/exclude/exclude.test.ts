import { describe, expect, it } from 'vitest';
import { buildGraphIndex, DataType, makeGraph, makeNode, makeValueInfo } from '../onnx/index.ts';
import { ExclusionError, resolveExclusions, resolveSubgraph } from './index.ts';

const f32 = (name: string) => makeValueInfo(name, DataType.FLOAT, [1]);

/**
 *   x → a → b → c → d → y
 *            ↘ e ↗
 *   x → f (a side branch that reaches no end)
 */
function diamond() {
  return buildGraphIndex(
    makeGraph({
      node: [
        makeNode('Conv', ['x'], ['ta'], 'a'),
        makeNode('Relu', ['ta'], ['tb'], 'b'),
        makeNode('Sigmoid', ['tb'], ['tc'], 'c'),
        makeNode('Add', ['tc', 'te'], ['td'], 'd'),
        makeNode('Exp', ['tb'], ['te'], 'e'),
        makeNode('Relu', ['x'], ['tf'], 'f'),
        makeNode('Relu', ['td'], ['y']),
      ],
      input: [f32('x')],
      output: [f32('y'), f32('tf')],
    }),
  );
}

describe('subgraph resolution (start nodes → end nodes)', () => {
  it('takes every node on a path from a start to an end, both included', () => {
    const index = diamond();
    const nodes = resolveSubgraph(index, { starts: ['b'], ends: ['d'] });
    expect(nodes.map((i) => index.ids[i])).toEqual(['b', 'c', 'e', 'd']);
  });
  it('a start that is also the end selects that node alone', () => {
    const index = diamond();
    expect(resolveSubgraph(index, { starts: ['c'], ends: ['c'] }).map((i) => index.ids[i])).toEqual(['c']);
  });
  it('accepts stable ids of unnamed nodes', () => {
    const index = diamond();
    expect(resolveSubgraph(index, { starts: ['d'], ends: ['Relu_6'] }).map((i) => index.ids[i])).toEqual([
      'd',
      'Relu_6',
    ]);
  });
  it('names an end that cannot be reached from the starts', () => {
    const index = diamond();
    expect(() => resolveSubgraph(index, { starts: ['c'], ends: ['f'] })).toThrow(ExclusionError);
    expect(() => resolveSubgraph(index, { starts: ['c'], ends: ['f'] })).toThrow(
      /end node "f" cannot be reached from the start node\(s\) "c"/,
    );
  });
  it('names a start that does not exist, with a suggestion', () => {
    expect(() => resolveSubgraph(diamond(), { starts: ['Relu_66'], ends: ['d'] })).toThrow(
      /"Relu_66" names no node.*did you mean "Relu_6"/,
    );
  });
});

describe('all exclusions together', () => {
  it('unites nodes, op types and subgraphs, in topological order', () => {
    const index = diamond();
    const r = resolveExclusions(index, {
      nodesToExclude: ['a'],
      opTypesToExclude: ['Exp'],
      subgraphsToExclude: [{ starts: ['c'], ends: ['d'] }],
    });
    expect(r.ids).toEqual(['a', 'c', 'e', 'd']);
    expect(r.rules.map((x) => x.ids)).toEqual([['a'], ['e'], ['c', 'd']]);
  });
  it('matches node names by regular expression as Quark does', () => {
    const index = diamond();
    expect(resolveExclusions(index, { nodesToExclude: ['^[ce]$'] }).ids).toEqual(['c', 'e']);
  });
  it('refuses an op type the model does not have', () => {
    expect(() => resolveExclusions(diamond(), { opTypesToExclude: ['Softmax'] })).toThrow(/no Softmax node/);
  });
});
