import { describe, expect, it } from 'vitest';
import { buildGraphIndex, type NodeId } from '../../../core/onnx/index.ts';
import { controlFlowModel } from '../../../core/quantize/testModels.ts';
import { excludedNodes, resolveEntry } from './resolution.ts';
import { scopeChain, withOuterReads } from './subgraphScope.ts';

describe('resolveEntry', () => {
  const index = buildGraphIndex(controlFlowModel().graph!);

  it('counts the nodes an entry names inside bodies (Suggest exclusions adds them by scoped id) beside the main graph’s', () => {
    const nodes = ['gemm', 'if/then_branch/then_gemm', 'loop/body/body_matmul'] as NodeId[];
    const r = resolveEntry(index, { id: 'e1', kind: 'nodes', name: 'suggested', nodes });
    expect(r).toEqual({
      nodes: [index.indexOfId.get('gemm' as NodeId)],
      bodyNodes: ['if/then_branch/then_gemm', 'loop/body/body_matmul'],
    });
  });

  it('says why an entry names nothing', () => {
    const r = resolveEntry(index, { id: 'e2', kind: 'nodes', name: 'x', nodes: ['if/then_branch/nope' as NodeId] });
    expect(r).toHaveProperty('error');
  });
});

describe('excludedNodes inside a body', () => {
  const main = buildGraphIndex(controlFlowModel().graph!);
  const chain = scopeChain(main.graph, [{ nodeId: 'loop', attribute: 'body' }])!;
  const body = buildGraphIndex(withOuterReads(chain).graph);
  const at = (id: string) => body.indexOfId.get(id as NodeId)!;

  it('shades the body node an entry names by scoped id, and the body nodes of an op-type entry', () => {
    const { excluded, nodesOf, problems } = excludedNodes(
      body,
      [
        { id: 'a', kind: 'nodes', name: 'picked', nodes: ['loop/body/body_matmul', 'gemm'] as NodeId[] },
        { id: 'b', kind: 'opTypes', name: 'tanh', opTypes: ['Tanh'] },
        { id: 'c', kind: 'nodes', name: 'elsewhere', nodes: ['if/then_branch/then_gemm'] as NodeId[] },
      ],
      { main, prefix: 'loop/body/' },
    );
    expect(problems.size).toBe(0);
    expect(nodesOf.get('a')).toEqual([at('body_matmul')]);
    expect(nodesOf.get('b')).toEqual([at('body_tanh')]);
    expect(nodesOf.get('c')).toEqual([]);
    expect([...excluded].flatMap((x, i) => (x ? [body.ids[i]] : [])).sort()).toEqual(['body_matmul', 'body_tanh']);
  });

  it('resolves entries on the main graph: a main-graph entry is no problem inside a body', () => {
    const { problems, excluded } = excludedNodes(
      body,
      [{ id: 'a', kind: 'nodes', name: 'main', nodes: ['gemm'] as NodeId[] }],
      { main, prefix: 'loop/body/' },
    );
    expect(problems.size).toBe(0);
    expect(excluded.every((x) => x === 0)).toBe(true);
  });
});

describe('excludedNodes on the main graph, for entries naming body nodes', () => {
  const main = buildGraphIndex(controlFlowModel().graph!);
  const at = (id: string) => main.indexOfId.get(id as NodeId)!;

  it('names the If/Loop holding them for the hover highlight, without excluding the holder itself', () => {
    const { excluded, nodesOf, holdersOf, problems } = excludedNodes(main, [
      { id: 'a', kind: 'nodes', name: 'body', nodes: ['loop/body/body_matmul'] as NodeId[] },
      { id: 'b', kind: 'nodes', name: 'both', nodes: ['if/then_branch/then_gemm', 'gemm'] as NodeId[] },
      { id: 'c', kind: 'nodes', name: 'main', nodes: ['gemm'] as NodeId[] },
    ]);
    expect(problems.size).toBe(0);
    expect(holdersOf.get('a')).toEqual([at('loop')]);
    expect(nodesOf.get('a')).toEqual([]);
    expect(holdersOf.get('b')).toEqual([at('if')]);
    expect(nodesOf.get('b')).toEqual([at('gemm')]);
    expect(holdersOf.has('c')).toBe(false);
    expect([...excluded].flatMap((x, i) => (x ? [main.ids[i]] : []))).toEqual(['gemm']);
  });
});
