import { describe, expect, it } from 'vitest';
import { layoutApi } from './layoutApi.ts';

describe('layout worker API', () => {
  it('lays boxes out, reports progress to the end, and says how long it took', async () => {
    const phases: string[] = [];
    const out = await layoutApi.layout(
      {
        widths: Float32Array.of(80, 80, 80),
        heights: Float32Array.of(40, 40, 40),
        edgeSources: Int32Array.of(0, 1),
        edgeTargets: Int32Array.of(1, 2),
      },
      (fraction, phase) => phases.push(`${phase}:${fraction}`),
    );
    expect(Array.from(out.rank)).toEqual([0, 1, 2]);
    expect(out.y[0]).toBeLessThan(out.y[2]);
    expect(phases[phases.length - 1]).toBe('done:1');
    expect(out.seconds).toBeGreaterThanOrEqual(0);
  });
});
