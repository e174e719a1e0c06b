/**
 * A top-down layered layout (Sugiyama style, as Netron draws ONNX graphs) that scales to tens of
 * thousands of boxes: ranks by longest path over a topological order, a few barycenter sweeps to cut
 * crossings, then x positions pulled towards neighbours and compacted without overlaps.
 *
 * Why our own: dagre and elkjs recurse and overflow the stack on deep graphs (docs/NOTES.md, from about
 * 3,000 and 5,000 nodes). Everything here is iterative, on typed arrays, O(sweeps × edges + sorting).
 * It must stay pure (no DOM, no workers): the layout worker runs it, tests call it directly.
 */

export interface LayoutInput {
  /** Box sizes in layout units (pixels at zoom 1), one per box. */
  widths: Float32Array;
  heights: Float32Array;
  /** Edges as pairs: edgeSources[k] → edgeTargets[k], box indices. Self-loops and duplicates are fine. */
  edgeSources: Int32Array;
  edgeTargets: Int32Array;
}

export interface LayoutOptions {
  /** Horizontal gap between neighbouring boxes of a rank. */
  nodeGap?: number;
  /** Vertical gap between ranks (room for edge labels). */
  rankGap?: number;
  /** Barycenter sweeps (each is one pass down and one pass up). */
  sweeps?: number;
  /** Called between phases with a fraction in 0…1 and the phase's name. */
  onProgress?: (fraction: number, phase: string) => void;
}

export interface LayoutResult {
  /** Box centres. */
  x: Float32Array;
  y: Float32Array;
  /** Rank (row) of every box, 0 at the top. */
  rank: Int32Array;
  /** Bounding box of all boxes: [minX, minY, maxX, maxY]. */
  bounds: [number, number, number, number];
}

interface Csr {
  start: Int32Array;
  targets: Int32Array;
}

function csr(count: number, from: Int32Array, to: Int32Array): Csr {
  const start = new Int32Array(count + 1);
  for (let k = 0; k < from.length; k++) if (from[k] !== to[k]) start[from[k] + 1]++;
  for (let i = 0; i < count; i++) start[i + 1] += start[i];
  const fill = start.slice(0, count);
  const targets = new Int32Array(start[count]);
  for (let k = 0; k < from.length; k++) if (from[k] !== to[k]) targets[fill[from[k]]++] = to[k];
  return { start, targets };
}

/** Kahn's algorithm, FIFO; boxes left on a cycle are appended in index order (their back edges are ignored). */
function topologicalOrder(count: number, succ: Csr, pred: Csr): Int32Array {
  const indegree = new Int32Array(count);
  for (let i = 0; i < count; i++) indegree[i] = pred.start[i + 1] - pred.start[i];
  const order = new Int32Array(count);
  const placed = new Uint8Array(count);
  let head = 0,
    tail = 0;
  for (let i = 0; i < count; i++) if (indegree[i] === 0) order[tail++] = i;
  for (;;) {
    while (head < tail) {
      const v = order[head++];
      placed[v] = 1;
      for (let k = succ.start[v]; k < succ.start[v + 1]; k++)
        if (--indegree[succ.targets[k]] === 0) order[tail++] = succ.targets[k];
    }
    if (tail === count) break;
    // A cycle (not in a valid ONNX graph, but never hang on one): release the first box still waiting.
    let v = 0;
    while (placed[v] || indegree[v] === 0) v++;
    indegree[v] = 0;
    order[tail++] = v;
  }
  return order;
}

/** Lays the boxes out top-down. Deterministic: the same input gives the same positions. */
export function layeredLayout(input: LayoutInput, options: LayoutOptions = {}): LayoutResult {
  const { widths, heights, edgeSources, edgeTargets } = input;
  const nodeGap = options.nodeGap ?? 24;
  const rankGap = options.rankGap ?? 44;
  const sweeps = options.sweeps ?? 3;
  const progress = options.onProgress ?? (() => undefined);
  const n = widths.length;
  const succ = csr(n, edgeSources, edgeTargets);
  const pred = csr(n, edgeTargets, edgeSources);
  const order = topologicalOrder(n, succ, pred);
  const position = new Int32Array(n); // place in the topological order
  for (let k = 0; k < n; k++) position[order[k]] = k;
  progress(0.1, 'ranks');

  // Longest path from the sources; edges that go back in the order (cycles only) are ignored.
  const rank = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const v = order[k];
    let r = 0;
    for (let e = pred.start[v]; e < pred.start[v + 1]; e++) {
      const u = pred.targets[e];
      if (position[u] < k && rank[u] + 1 > r) r = rank[u] + 1;
    }
    rank[v] = r;
  }
  // Sources (graph inputs, constants) sit just above their first consumer, not all at the top.
  for (let k = n - 1; k >= 0; k--) {
    const v = order[k];
    if (pred.start[v + 1] > pred.start[v] || succ.start[v + 1] === succ.start[v]) continue;
    let r = Infinity;
    for (let e = succ.start[v]; e < succ.start[v + 1]; e++) r = Math.min(r, rank[succ.targets[e]] - 1);
    if (r > rank[v] && Number.isFinite(r)) rank[v] = r;
  }

  // Ranks as slices of one array, boxes in topological order within a rank to start with.
  let rankCount = 0;
  for (let i = 0; i < n; i++) if (rank[i] + 1 > rankCount) rankCount = rank[i] + 1;
  const rankStart = new Int32Array(rankCount + 1);
  for (let i = 0; i < n; i++) rankStart[rank[i] + 1]++;
  for (let r = 0; r < rankCount; r++) rankStart[r + 1] += rankStart[r];
  const layer = new Int32Array(n);
  {
    const fill = rankStart.slice(0, rankCount);
    for (let k = 0; k < n; k++) layer[fill[rank[order[k]]]++] = order[k];
  }
  const x = new Float32Array(n);
  const packRank = (r: number) => {
    let width = 0;
    for (let k = rankStart[r]; k < rankStart[r + 1]; k++) width += widths[layer[k]] + nodeGap;
    let left = -width / 2;
    for (let k = rankStart[r]; k < rankStart[r + 1]; k++) {
      const v = layer[k];
      x[v] = left + widths[v] / 2;
      left += widths[v] + nodeGap;
    }
  };
  for (let r = 0; r < rankCount; r++) packRank(r);
  progress(0.25, 'ordering');

  // Barycenter sweeps: sort each rank by the mean x of its neighbours in the ranks already placed.
  const key = new Float64Array(n);
  const meanOf = (v: number, adj: Csr, fallback: number) => {
    const a = adj.start[v],
      b = adj.start[v + 1];
    if (a === b) return fallback;
    let sum = 0;
    for (let e = a; e < b; e++) sum += x[adj.targets[e]];
    return sum / (b - a);
  };
  const sortRank = (r: number, adj: Csr) => {
    const a = rankStart[r],
      b = rankStart[r + 1];
    if (b - a < 2) return;
    for (let k = a; k < b; k++) key[layer[k]] = meanOf(layer[k], adj, x[layer[k]]);
    const slice = Array.from(layer.subarray(a, b));
    slice.sort((p, q) => key[p] - key[q] || position[p] - position[q]);
    layer.set(slice, a);
    packRank(r);
  };
  for (let s = 0; s < sweeps; s++) {
    for (let r = 1; r < rankCount; r++) sortRank(r, pred);
    for (let r = rankCount - 2; r >= 0; r--) sortRank(r, succ);
    progress(0.25 + (0.45 * (s + 1)) / sweeps, 'ordering');
  }

  // x positions: pull each box to its neighbours' mean, keep the order and the gaps. The mean of the
  // leftmost and the rightmost feasible placements is feasible too (the constraints are convex).
  const left = new Float64Array(n);
  const right = new Float64Array(n);
  const place = (r: number, adj: Csr) => {
    const a = rankStart[r],
      b = rankStart[r + 1];
    if (a === b) return;
    for (let k = a; k < b; k++) key[layer[k]] = meanOf(layer[k], adj, x[layer[k]]);
    for (let k = a; k < b; k++) {
      const v = layer[k];
      left[v] =
        k === a ? key[v] : Math.max(key[v], left[layer[k - 1]] + (widths[layer[k - 1]] + widths[v]) / 2 + nodeGap);
    }
    for (let k = b - 1; k >= a; k--) {
      const v = layer[k];
      right[v] =
        k === b - 1 ? key[v] : Math.min(key[v], right[layer[k + 1]] - (widths[layer[k + 1]] + widths[v]) / 2 - nodeGap);
    }
    for (let k = a; k < b; k++) x[layer[k]] = (left[layer[k]] + right[layer[k]]) / 2;
  };
  for (let s = 0; s < 4; s++) {
    for (let r = 1; r < rankCount; r++) place(r, pred);
    for (let r = rankCount - 2; r >= 0; r--) place(r, succ);
  }
  progress(0.9, 'positions');

  const y = new Float32Array(n);
  let top = 0;
  let minX = Infinity,
    maxX = -Infinity;
  for (let r = 0; r < rankCount; r++) {
    let height = 0;
    for (let k = rankStart[r]; k < rankStart[r + 1]; k++) height = Math.max(height, heights[layer[k]]);
    for (let k = rankStart[r]; k < rankStart[r + 1]; k++) {
      const v = layer[k];
      y[v] = top + height / 2;
      minX = Math.min(minX, x[v] - widths[v] / 2);
      maxX = Math.max(maxX, x[v] + widths[v] / 2);
    }
    top += height + rankGap;
  }
  progress(1, 'done');
  return { x, y, rank, bounds: n === 0 ? [0, 0, 0, 0] : [minX, 0, maxX, Math.max(0, top - rankGap)] };
}
