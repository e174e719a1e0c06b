/**
 * Read-only views of a canonical histogram (`histogram.ts`) in the shapes the reference algorithms expect.
 *
 * ONNX Runtime and Quark run their threshold searches on numpy histograms: `num_bins` equal bins over
 * [-t, t] (ORT `collect_value`), over [min |x|, max |x|] (ORT `collect_absolute_value`) or over [min, max]
 * (Quark `compute_minmse`, `PowOfTwoCollector`), with float32 edges. `referenceHistogram` re-bins onto such a
 * layout, which is what the reference builds when all calibration data arrive as one batch (ORT's own
 * `HistogramCalibrater.collect_data` does exactly that). `binPoints` gives one weighted sample point per
 * non-empty bin, for error sums that the references compute on raw values; `histogramQuantile` replaces
 * `numpy.percentile` on raw values. Each of these places a value at most one fine bin from where it was.
 * No method logic here.
 */

import { type Histogram, binWidth } from './histogram.ts';

/** Weighted sample points: `points[i]` stands for `weights[i]` values. */
export interface WeightedPoints {
  readonly points: Float64Array;
  readonly weights: Float64Array;
}

/** numpy-style histogram: `counts.length` bins, `edges.length = counts.length + 1`, edges rounded to float32. */
export interface ReferenceHistogram {
  readonly counts: Float64Array;
  readonly edges: Float64Array;
}

/** The part of fine bin j that lies inside the data's [min, max]. */
function binSpan(h: Histogram, j: number, w: number): [number, number] {
  const a = (h.offset + j) * w;
  return [a < h.min ? h.min : a, a + w > h.max ? h.max : a + w];
}

/**
 * One point per non-empty bin, at the middle of the bin's part inside [min, max], weighted by its count.
 * A bin holding one distinct value (the extremes, or data with fewer distinct values than bins at the
 * finest width) gives that value exactly.
 */
export function binPoints(h: Histogram): WeightedPoints {
  let used = 0;
  for (let j = 0; j < h.bins.length; j++) if (h.bins[j] !== 0) used++;
  const points = new Float64Array(used);
  const weights = new Float64Array(used);
  let k = 0;
  forEachBinPoint(h, (p, c) => {
    points[k] = p;
    weights[k] = c;
    k++;
  });
  return { points, weights };
}

/** Calls `visit(point, count)` for each non-empty bin in order, its point as `binPoints` gives it (no allocation). */
function forEachBinPoint(h: Histogram, visit: (point: number, count: number) => void): void {
  const w = binWidth(h);
  const bins = h.bins;
  const { offset, min, max } = h;
  for (let j = 0; j < bins.length; j++) {
    const c = bins[j];
    if (c === 0) continue;
    // binSpan, inline: the bin's part inside [min, max], and its middle.
    const a = (offset + j) * w;
    const lo = a < min ? min : a;
    const hi = a + w > max ? max : a + w;
    visit((lo + hi) / 2, c);
  }
}

/**
 * The histogram numpy.histogram(values, n, range=(lo, hi)) would give, each fine bin moved whole to the
 * reference bin holding its point. As numpy does, an empty range (lo = hi) becomes [lo − 0.5, hi + 0.5] and
 * the last bin is closed on the right.
 */
export function referenceHistogram(h: Histogram, lo: number, hi: number, n: number): ReferenceHistogram {
  if (lo === hi) {
    lo -= 0.5;
    hi += 0.5;
  }
  const counts = new Float64Array(n);
  const edges = new Float64Array(n + 1);
  const step = (hi - lo) / n;
  for (let i = 0; i < n; i++) edges[i] = Math.fround(lo + i * step);
  edges[n] = Math.fround(hi);
  const norm = n / (hi - lo);
  const base = lo;
  forEachBinPoint(h, (p, c) => {
    let i = Math.floor((p - base) * norm);
    i = i < 0 ? 0 : i > n - 1 ? n - 1 : i;
    // numpy's correction against the rounded edges.
    if (i > 0 && p < edges[i]) i--;
    else if (i < n - 1 && p >= edges[i + 1]) i++;
    counts[i] += c;
  });
  return { counts, edges };
}

/** ORT `collect_value`'s layout: n bins over [-a, a], a = max |x| rounded to float32. */
export function centeredReference(h: Histogram, n: number): ReferenceHistogram {
  const a = Math.fround(Math.max(Math.abs(h.min), Math.abs(h.max)));
  return referenceHistogram(h, -a, a, n);
}

/** numpy's default layout (no `range`): n bins over [min, max] of the folded values (|x| for an abs histogram). */
export function spanReference(h: Histogram, n: number): ReferenceHistogram {
  return referenceHistogram(h, h.min, h.max, n);
}

/** Value of the order statistic of rank k (0-based), the values of each bin spread evenly across it. */
function orderStatistic(h: Histogram, k: number): number {
  if (k <= 0) return h.min;
  if (k >= h.count - 1) return h.max;
  const w = binWidth(h);
  let below = 0;
  for (let j = 0; j < h.bins.length; j++) {
    const c = h.bins[j];
    if (c === 0) continue;
    if (k < below + c) {
      const [lo, hi] = binSpan(h, j, w);
      return lo + ((k - below + 0.5) / c) * (hi - lo);
    }
    below += c;
  }
  return h.max;
}

/**
 * The q-quantile (q in [0, 1]) as numpy.percentile(values, 100 q) computes it (linear interpolation between
 * the order statistics around rank q·(n − 1)), from the histogram instead of the raw values.
 */
export function histogramQuantile(h: Histogram, q: number): number {
  if (h.count === 0) return 0;
  const r = q * (h.count - 1);
  const k = Math.floor(r);
  const v0 = orderStatistic(h, k);
  const frac = r - k;
  return frac === 0 ? v0 : v0 + frac * (orderStatistic(h, k + 1) - v0);
}

/** Bin centres of a reference histogram, in float32 as numpy computes (e[i] + e[i+1]) / 2 on float32 edges. */
export function binCenters(edges: Float64Array): Float64Array {
  const n = edges.length - 1;
  const centers = new Float64Array(n);
  for (let i = 0; i < n; i++) centers[i] = Math.fround(Math.fround(edges[i] + edges[i + 1]) / 2);
  return centers;
}
