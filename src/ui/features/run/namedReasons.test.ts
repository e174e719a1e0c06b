import { describe, expect, it } from 'vitest';
import { namedReasons } from './namedReasons.ts';
import type { NodeId } from '../../../core/onnx/model.ts';

describe('namedReasons', () => {
  it("puts the user's name of a subgraph or node list before what the quantizer calls the rule", () => {
    const named = namedReasons([
      {
        id: '1',
        kind: 'subgraph',
        name: 'post-processing tail',
        starts: ['Slice_217' as NodeId],
        ends: ['Concat_241' as NodeId],
      },
      { id: '2', kind: 'nodes', name: 'stem', nodes: ['Conv_0' as NodeId, 'Conv_1' as NodeId] },
      { id: '3', kind: 'subgraph', name: ' ', starts: ['A' as NodeId], ends: ['B' as NodeId] },
    ]);
    expect(named('excluded (subgraph Slice_217 → Concat_241)')).toBe(
      'excluded: “post-processing tail” (subgraph Slice_217 → Concat_241)',
    );
    expect(named('excluded (node Conv_1)')).toBe('excluded: “stem” (node Conv_1)');
    expect(named('excluded (subgraph A → B)')).toBe('excluded (subgraph A → B)');
    expect(named('no quantization rule for Exp')).toBe('no quantization rule for Exp');
  });
});
