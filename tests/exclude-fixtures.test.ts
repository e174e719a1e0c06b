/**
 * Exclusions on the real detectors: UltraFace's post-processing tail picked by its start and end
 * nodes is exactly what the fixture exported without post-processing lacks; YOLOX's named tail works.
 */
import { describe, expect, it } from 'vitest';
import { buildGraphIndex, decode } from '../src/core/onnx/index.ts';
import { resolveExclusions } from '../src/core/exclude/index.ts';
import { readModel } from './helpers/fixtures.ts';
import { structuralDifference, ULTRAFACE_TAIL } from './helpers/ultrafaceTail.ts';

export { structuralDifference, ULTRAFACE_TAIL };

describe('exclusion on the fixtures', () => {
  it('UltraFace: the tail between its start and end nodes is what the no-post-processing export lacks', () => {
    const full = readModel('ultraface-rfb-320.onnx');
    const difference = structuralDifference(full, readModel('ultraface-rfb-320-nopost.onnx'));
    const index = buildGraphIndex(decode(full).graph!);
    const resolved = resolveExclusions(index, { subgraphsToExclude: [ULTRAFACE_TAIL] });
    // 18 computing nodes (Slice, Mul, Add, Exp, Concat, Sub, Div). The tail's 8 Constant scalars match
    // Constant nodes of the other file by structure; they lie on no path, and become initializers
    // (float, as their consumers are) when the graph is prepared.
    expect(difference).toHaveLength(18);
    expect([...resolved.ids].sort()).toEqual([...difference].sort());
  });

  it('YOLOX: its named output tail resolves from Concat_397 … Transpose_423', () => {
    const index = buildGraphIndex(decode(readModel('yolox-nano.onnx')).graph!);
    const r = resolveExclusions(index, { subgraphsToExclude: [{ starts: ['Concat_397'], ends: ['Transpose_423'] }] });
    expect(r.ids[0]).toBe('Concat_397');
    expect(r.ids[r.ids.length - 1]).toBe('Transpose_423');
    expect(r.ids.length).toBeGreaterThan(2);
  });
});
