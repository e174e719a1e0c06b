import { describe, expect, it } from 'vitest';
import { buildGraphIndex, type NodeId } from '../../../core/onnx/index.ts';
import { controlFlowModel } from '../../../core/quantize/testModels.ts';
import { resolveEntry } from './resolution.ts';

describe('resolveEntry', () => {
  const index = buildGraphIndex(controlFlowModel().graph!);

  it('counts the nodes an entry names inside bodies (Suggest exclusions adds them by scoped id) beside the main graph’s', () => {
    const nodes = ['gemm', 'if/then_branch/then_gemm', 'loop/body/body_matmul'] as NodeId[];
    const r = resolveEntry(index, { id: 'e1', kind: 'nodes', name: 'suggested', nodes });
    expect(r).toEqual({ nodes: [index.indexOfId.get('gemm' as NodeId)], inBodies: 2 });
  });

  it('says why an entry names nothing', () => {
    const r = resolveEntry(index, { id: 'e2', kind: 'nodes', name: 'x', nodes: ['if/then_branch/nope' as NodeId] });
    expect(r).toHaveProperty('error');
  });
});
