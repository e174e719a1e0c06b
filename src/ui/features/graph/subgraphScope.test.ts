import { describe, expect, it } from 'vitest';
import { controlFlowModel } from '../../../core/quantize/testModels.ts';
import { bodyNodeLabel, bodyNodePath, scopeChain, scopePrefix, scopeView } from './subgraphScope.ts';

describe('a subgraph as the graph view draws it', () => {
  const main = controlFlowModel().graph!;

  it('finds the body of a per-layer table node id (holder/attribute/node, nested) and its id there; null otherwise', () => {
    expect(bodyNodePath(main, 'if/then_branch/then_gemm')).toEqual({
      path: [{ nodeId: 'if', attribute: 'then_branch' }],
      nodeId: 'then_gemm',
    });
    expect(bodyNodePath(main, 'if/then_branch/inner_if/then_branch/inner_matmul')).toEqual({
      path: [
        { nodeId: 'if', attribute: 'then_branch' },
        { nodeId: 'inner_if', attribute: 'then_branch' },
      ],
      nodeId: 'inner_matmul',
    });
    expect(bodyNodePath(main, 'loop/body/body_tanh')?.path).toEqual([{ nodeId: 'loop', attribute: 'body' }]);
    expect(bodyNodePath(main, 'gemm')).toBeNull(); // a main-graph node
    expect(bodyNodePath(main, 'if/then_branch/nothing')).toBeNull();
    expect(bodyNodePath(main, 'if/else_branch/then_gemm')).toBeNull(); // in the other branch
  });

  it('names a body node by its id and where its body is, and gives a body the prefix of its nodes’ scoped ids', () => {
    expect(bodyNodeLabel(main, 'if/then_branch/then_gemm')).toBe('then_gemm (inside if · then_branch)');
    expect(bodyNodeLabel(main, 'if/then_branch/inner_if/else_branch/inner_relu')).toBe(
      'inner_relu (inside if · then_branch › inner_if · else_branch)',
    );
    expect(bodyNodeLabel(main, 'gemm')).toBe('gemm');
    expect(
      scopePrefix([
        { nodeId: 'if', attribute: 'then_branch' },
        { nodeId: 'inner_if', attribute: 'then_branch' },
      ]),
    ).toBe('if/then_branch/inner_if/then_branch/');
  });

  it('draws the tensors a body reads from enclosing scopes as its inputs, marked, and their weights as weights', () => {
    const chain = scopeChain(main, [{ nodeId: 'if', attribute: 'then_branch' }])!;
    const { view } = scopeView(chain, {});
    const h = view.boxes[view.boxById.get('input:h')!];
    expect(h).toMatchObject({ kind: 'input', outerScope: true, subtitle: 'outer scope' });
    // An edge from it to the Gemm that reads it; the weights wt, bt get no box and are the Gemm's weights.
    expect(view.edges.some((e) => e.source === view.boxById.get('input:h') && e.tensor === 'h')).toBe(true);
    expect(view.boxById.has('input:wt')).toBe(false);
    expect(view.index.initializers.has('wt')).toBe(true);
    expect(view.tensorInfo.get('bt')?.shape).toEqual([4]);
  });

  it('resolves a name to the innermost scope that defines it, two levels down', () => {
    const chain = scopeChain(main, [
      { nodeId: 'if', attribute: 'then_branch' },
      { nodeId: 'inner_if', attribute: 'then_branch' },
    ])!;
    expect(chain).toHaveLength(3);
    const { view } = scopeView(chain, {});
    expect(view.boxes.filter((b) => b.outerScope).map((b) => b.title)).toEqual(['t1']);
    expect(view.index.initializers.has('wn')).toBe(true);
  });

  it('a Loop body reading only weights gets no outer input; a step naming nothing gives null', () => {
    const { view } = scopeView(scopeChain(main, [{ nodeId: 'loop', attribute: 'body' }])!, {});
    expect(view.boxes.some((b) => b.outerScope)).toBe(false);
    expect(view.index.initializers.has('w0')).toBe(true);
    expect(scopeChain(main, [{ nodeId: 'nothing', attribute: 'body' }])).toBeNull();
  });
});
