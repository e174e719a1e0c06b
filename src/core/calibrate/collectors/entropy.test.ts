import { describe, expect, it } from 'vitest';
import { EntropyCollector, entropyThreshold, windowDivergence, withoutZeroSpike } from './entropy.ts';
import { MinMaxCollector } from './minmax.ts';
import { gaussian, randomPartition, unevenBatches } from '../testData.ts';

const f32 = (xs: number[]) => Float32Array.from(xs);
const run = (x: Float32Array, options = {}) =>
  EntropyCollector.finalize(EntropyCollector.update(EntropyCollector.create(options), x));
const repeat = (v: number, n: number) => Array.from({ length: n }, () => v);

describe('Entropy (ORT get_entropy_threshold)', () => {
  it("defaults: TensorRT's 2048 bins, ORT's 128 quantized bins", () => {
    expect(EntropyCollector.defaults).toEqual({ numBins: 2048, numQuantizedBins: 128 });
  });

  it("with ORT's defaults (128 bins) there is one candidate, the whole histogram: the MinMax range", () => {
    // zero bin 64, half of 128 quantized bins is 64: i runs from 64 to 64 only.
    const x = gaussian(20000, 1);
    x[7] = 40;
    const minmax = MinMaxCollector.finalize(MinMaxCollector.update(MinMaxCollector.create(), x));
    expect(run(x, { numBins: 128 })).toEqual(minmax);
  });

  it('with the defaults it searches: an outlier far out does not set the range', () => {
    const x = gaussian(20000, 1);
    x[7] = 40;
    const r = run(x);
    expect(r.max).toBeLessThan(10);
    expect(r.max).toBeGreaterThan(2);
  });

  it('by hand: 6 bins, 3 quantized bins, an outlier bin on the left', () => {
    // Values −3 (×1), −0.5, 0.5, 1.5 (×10 each): a = 3, bins of width 1 over [−3, 3]:
    // hist = [1, 0, 10, 10, 10, 0]; zero bin 3; candidates i = 1, 2, 3.
    // i = 1, window bins 2…4: p = [10 + 1, 10, 10], merged 1 bin per group → q = [10, 10, 10].
    //   KL = 11/31 ln(33/31) + 2 · 10/31 ln(30/31) = 0.022185 − 0.021155 ≈ 0.00103.
    // i = 2, bins 1…5: p = [1, 10, 10, 10, 0], q = [0, 10, 20, 0, 0] (remainder bins get nothing);
    //   after smoothing q holds 1e-4 where p holds 10: KL ≈ 3.7.
    // i = 3, bins 0…5: p = [1, 0, 10, 10, 10, 0], groups of 2: q = [1, 1, 10, 10, 10, 10]; KL ≈ 0.304.
    // i = 1 wins: edges 2 and 5 → [−1, 2], the top clipped to the data's max 1.5.
    const x = f32([-3, ...repeat(-0.5, 10), ...repeat(0.5, 10), ...repeat(1.5, 10)]);
    expect(run(x, { numBins: 6, numQuantizedBins: 3 })).toEqual({ min: -1, max: 1.5 });
  });

  it('by hand: the whole window wins when cutting would lose more', () => {
    // hist = [1, 2, 4, 1] over [−2, 2], 2 quantized bins; candidates i = 1 (bins 1…3), i = 2 (all).
    // i = 1: p = [3, 4, 1], q = [2, 5, 0] → smoothed q[2] = 1e-4, KL ≈ 1.058.
    // i = 2: p = [1, 2, 4, 1], groups [3, 5] spread over two non-empty bins each, truncated:
    //   q = [1, 1, 2, 2]; KL = 1/8 ln(3/4) + 2/8 ln(3/2) + 4/8 ln(3/2) + 1/8 ln(3/8) ≈ 0.1455.
    const ref = { counts: Float64Array.from([1, 2, 4, 1]), edges: Float64Array.from([-2, -1, 0, 1, 2]) };
    expect(entropyThreshold(ref, 2)).toEqual([-2, 2]);
  });

  it('by hand: outliers folded into the end bins make a narrow window costly', () => {
    // hist = [1000, 0, 10, 10, 10, 0] over [−3, 3], 3 quantized bins.
    // i = 1: p = [10 + 1000, 10, 10], q = [10, 10, 10]: KL ≈ 0.981 ln(2.94) + 2 · 0.0097 ln(0.029) ≈ 0.989.
    // i = 3: p = [1000, 0, 10, 10, 10, 0]; groups [1000, 20, 10] spread over their non-empty bins:
    //   q = [1000, 1000, 10, 10, 10, 10]; KL ≈ ln((1000/1030)/(1000/2040)) ≈ 0.683. The whole window wins.
    const ref = {
      counts: Float64Array.from([1000, 0, 10, 10, 10, 0]),
      edges: Float64Array.from([-3, -2, -1, 0, 1, 2, 3]),
    };
    expect(entropyThreshold(ref, 3)).toEqual([-3, 3]);
  });

  it("by hand: q is truncated to integers, as ORT's int64 array does", () => {
    // hist = [3, 2, 2, 2, 2, 0], 3 quantized bins.
    // i = 1: p = [2 + 5, 2, 2], q = [2, 2, 2]: KL = 7/11 ln(21/11) + 4/11 ln(6/11) ≈ 0.1911.
    // i = 3: groups [5, 4, 2]; 5 over two bins truncates to 2: q = [2, 2, 2, 2, 2, 2]:
    //   KL ≈ 3/11 ln(18/11) + 8/11 ln(12/11) ≈ 0.1976, so i = 1 wins → edges 2 and 5.
    //   (Untruncated, q = [2.5, 2.5, 2, 2, 2, 2] would give ≈ 0.1762 and the whole window.)
    const ref = { counts: Float64Array.from([3, 2, 2, 2, 2, 0]), edges: Float64Array.from([-3, -2, -1, 0, 1, 2, 3]) };
    expect(entropyThreshold(ref, 3)).toEqual([-1, 2]);
  });

  it('clips a far outlier with a real search (2048 bins)', () => {
    const x = gaussian(200000, 2);
    x[0] = 60;
    x[1] = -55;
    const r = run(x, { numBins: 2048 });
    expect(r.max).toBeLessThan(30);
    expect(r.max).toBeGreaterThan(2);
    expect(r.min).toBeLessThan(-2);
  });

  it("does not let a ReLU's spike of exact zeros shrink the range (pytorch-quantization's zero bin)", () => {
    // 80 % of the values exactly 0, the rest |N(0, 1)| (max 3.9): with the spike kept in p, the search
    // cuts at about 2.0; without it, at 3.4.
    const g = gaussian(40000, 5);
    const x = Float32Array.from(g, (v, i) => (i % 5 ? 0 : Math.abs(v)));
    expect(run(x).max).toBeGreaterThan(3);
    const ref = { counts: Float64Array.from([1, 2, 90, 3, 4]), edges: Float64Array.from([-2, -1, 0, 1, 2, 3]) };
    expect(Array.from(withoutZeroSpike(ref).counts)).toEqual([1, 2, 3, 3, 4]);
    expect(Array.from(ref.counts)).toEqual([1, 2, 90, 3, 4]);
  });

  it('refuses more quantized bins than bins', () => {
    expect(() => EntropyCollector.create({ numBins: 64, numQuantizedBins: 128 })).toThrow(RangeError);
  });
});

describe('Entropy merging', () => {
  it('gives the same range in any order and grouping', () => {
    const batches = unevenBatches(9, 2000, 41);
    const options = { numBins: 512 };
    const fold = (bs: Float32Array[]) =>
      bs.reduce((s, b) => EntropyCollector.update(s, b), EntropyCollector.create(options));
    const whole = EntropyCollector.finalize(fold(batches));
    for (let seed = 1; seed <= 4; seed++) {
      const merged = randomPartition(batches, 3, seed)
        .map(fold)
        .reduce((a, b) => EntropyCollector.merge(a, b));
      expect(EntropyCollector.finalize(merged)).toEqual(whole);
    }
  });
});

/** ORT's steps for one window, literally (p, q, smooth_distribution, entropy): the reference for windowDivergence. */
function literalDivergence(hist: Float64Array, numQuantizedBins: number, i: number): number {
  const n = hist.length;
  const zero = Math.floor(n / 2);
  const start = zero - i;
  const end = Math.min(zero + i + 1, n);
  const len = end - start;
  const sum = (a: number, b: number) => hist.slice(a, b).reduce((x, y) => x + y, 0);
  const p = Array.from(hist.slice(start, end));
  p[0] += sum(0, start);
  p[len - 1] += sum(end, n);
  const nonzero = p.map((v): number => (v !== 0 ? 1 : 0));
  const merged = Math.floor(len / numQuantizedBins);
  const quantized = Array.from({ length: numQuantizedBins }, (_, g) =>
    sum(start + g * merged, start + (g + 1) * merged),
  );
  quantized[numQuantizedBins - 1] += sum(start + numQuantizedBins * merged, end);
  const q = new Array<number>(len).fill(0);
  for (let g = 0; g < numQuantizedBins; g++) {
    const norm = nonzero.slice(g * merged, (g + 1) * merged).reduce((x, y) => x + y, 0);
    if (norm !== 0) for (let k = g * merged; k < (g + 1) * merged; k++) q[k] = Math.trunc(quantized[g] / norm);
  }
  const smooth = (d: number[]) => {
    const zeros = d.filter((v) => v === 0).length;
    const nz = d.length - zeros;
    if (nz === 0) return null;
    const eps1 = (1e-4 * zeros) / nz;
    if (!(eps1 < 1)) return null;
    return d.map((v) => (v === 0 ? 1e-4 : v - eps1));
  };
  const ps = smooth(p);
  const qs = smooth(q);
  if (!ps || !qs) return Infinity;
  const sp = ps.reduce((x, y) => x + y, 0);
  const sq = qs.reduce((x, y) => x + y, 0);
  return ps.reduce((kl, v, k) => kl + (v / sp) * Math.log(v / sp / (qs[k] / sq)), 0);
}

describe('Entropy window divergence', () => {
  it("equals ORT's literal p, q, smoothing and KL on every window of sparse, outlier-heavy histograms", () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (const [n, nq] of [
      [64, 8],
      [65, 7],
      [200, 16],
      [300, 128],
      [6, 3],
    ] as const) {
      for (let trial = 0; trial < 4; trial++) {
        // Mostly empty bins, a peak near zero and a few far outliers: windows with zero ends and remainders.
        const hist = Float64Array.from({ length: n }, (_, k) => {
          const d = Math.abs(k - n / 2);
          return rand() < 0.4 ? 0 : Math.floor(rand() * 1000 * Math.exp(-d / (n / 10)));
        });
        hist[trial] += 3;
        const ref = { counts: hist, edges: Float64Array.from({ length: n + 1 }, (_, k) => k) };
        const fast = windowDivergence(ref, nq);
        for (let i = Math.floor(nq / 2); i <= Math.floor(n / 2); i++) {
          const want = literalDivergence(hist, nq, i);
          const got = fast(i);
          if (want === Infinity) expect(got).toBe(Infinity);
          else expect(Math.abs(got - want)).toBeLessThan(1e-9 * Math.max(1, Math.abs(want)));
        }
      }
    }
  });
});
