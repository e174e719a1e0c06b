import { describe, expect, it } from 'vitest';
import { layeredLayout, type LayoutInput } from './layeredLayout.ts';

function graph(count: number, edges: [number, number][], width = 80): LayoutInput {
  return {
    widths: new Float32Array(count).fill(width),
    heights: new Float32Array(count).fill(40),
    edgeSources: Int32Array.from(edges.map((e) => e[0])),
    edgeTargets: Int32Array.from(edges.map((e) => e[1])),
  };
}

/** Boxes of one rank never overlap and keep the gap. */
function overlaps(input: LayoutInput, x: Float32Array, rank: Int32Array, gap: number): number {
  const byRank = new Map<number, number[]>();
  rank.forEach((r, i) => byRank.set(r, [...(byRank.get(r) ?? []), i]));
  let bad = 0;
  for (const boxes of byRank.values()) {
    boxes.sort((a, b) => x[a] - x[b]);
    for (let k = 1; k < boxes.length; k++) {
      const a = boxes[k - 1],
        b = boxes[k];
      if (x[b] - x[a] < (input.widths[a] + input.widths[b]) / 2 + gap - 1e-3) bad++;
    }
  }
  return bad;
}

describe('layered layout', () => {
  it('puts every edge downwards, one rank per step of the longest path', () => {
    //  0 → 1 → 2 → 3, and 0 → 3 directly (a skip connection)
    const input = graph(4, [
      [0, 1],
      [1, 2],
      [2, 3],
      [0, 3],
    ]);
    const { rank, y } = layeredLayout(input);
    expect(Array.from(rank)).toEqual([0, 1, 2, 3]);
    expect(y[0] < y[1] && y[1] < y[2] && y[2] < y[3]).toBe(true);
  });

  it('places a source just above its first consumer (a weight-like input deep in the graph)', () => {
    // 0 → 1 → 2 → 3 and a second source 4 → 3
    const { rank } = layeredLayout(
      graph(5, [
        [0, 1],
        [1, 2],
        [2, 3],
        [4, 3],
      ]),
    );
    expect(rank[4]).toBe(2);
  });

  it('keeps boxes of a rank apart and uncrossed on a fan-out / fan-in', () => {
    const edges: [number, number][] = [];
    for (let i = 1; i <= 6; i++) edges.push([0, i], [i, 7]);
    const input = graph(8, edges, 100);
    const { x, rank, bounds } = layeredLayout(input, { nodeGap: 20 });
    expect(overlaps(input, x, rank, 20)).toBe(0);
    // The single box above and below sit over the middle of the fan.
    expect(Math.abs(x[0] - x[7])).toBeLessThan(1);
    expect(bounds[2] - bounds[0]).toBeCloseTo(6 * 100 + 5 * 20, 0);
  });

  it('untangles crossings: children follow their parents’ order', () => {
    // Parents 0 and 1; 0's child listed last in the file, 1's child first.
    const { x } = layeredLayout(
      graph(4, [
        [0, 3],
        [1, 2],
      ]),
    );
    expect(Math.sign(x[0] - x[1])).toBe(Math.sign(x[3] - x[2]));
  });

  it('lays out 20,000 boxes in one deep chain with branches without recursion', () => {
    const n = 20_000;
    const edges: [number, number][] = [];
    for (let i = 1; i < n; i++) edges.push([i - 1, i]);
    for (let i = 10; i < n; i += 7) edges.push([i - 10, i]);
    const input = graph(n, edges);
    const { rank, x } = layeredLayout(input);
    expect(rank[n - 1]).toBe(n - 1);
    expect(x.every(Number.isFinite)).toBe(true);
    expect(overlaps(input, x, rank, 24)).toBe(0);
  });

  it('never hangs on a cycle (not valid ONNX, but a view must not freeze)', () => {
    const { rank } = layeredLayout(
      graph(3, [
        [0, 1],
        [1, 2],
        [2, 1],
      ]),
    );
    expect(rank.length).toBe(3);
  });

  it('is deterministic and reports progress up to 1', () => {
    const input = graph(6, [
      [0, 1],
      [0, 2],
      [1, 3],
      [2, 3],
      [3, 4],
      [2, 5],
    ]);
    const seen: number[] = [];
    const a = layeredLayout(input, { onProgress: (f) => seen.push(f) });
    const b = layeredLayout(input);
    expect(Array.from(a.x)).toEqual(Array.from(b.x));
    expect(seen[seen.length - 1]).toBe(1);
  });
});
