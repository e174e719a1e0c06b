/**
 * Entropy: choose the clipping range whose 8-bit rendering of the histogram loses the least information,
 * measured as the KL divergence between the clipped histogram and its requantized copy (TensorRT's method).
 *
 * Reference: ORT `calibrate.py`, `HistogramCollector.get_entropy_threshold` on the `collect_value` histogram
 * (`num_bins` bins over [-a, a], a = max |x|), with `quant_utils.smooth_distribution` and ORT's own
 * `entropy`. Candidates are the windows of 2i + 1 bins around the zero bin, i from num_quantized_bins / 2
 * to num_bins / 2; for each, p is the window with the outliers added to its end bins, q merges the window
 * into num_quantized_bins groups and spreads each group's count over its non-empty bins (truncated to an
 * integer, as ORT's int64 array does), both are smoothed (zeros get 1e-4, the rest give it back) and the
 * window with the smallest KL(p ‖ q) wins; its edges are clipped to the data's min and max. ORT's
 * `symmetric` flag does not reach this method, so there is none here.
 *
 * With ORT's defaults (num_bins = 128 = num_quantized_bins) there is exactly one candidate, the whole
 * histogram, so Entropy returns the MinMax range; the project NOTES measured exactly that. So the default
 * here is TensorRT's 2048 bins (about 960 candidate windows), and configurations default NumBins to 2048 too.
 *
 * Speed: each candidate costs O(window) and ORT tries all of them, O(num_bins²) per tensor (seconds per model
 * at 2048 bins). This searches coarse to fine instead: about `COARSE_CANDIDATES` windows evenly spaced, then
 * every window within one stride of the best of those. It returns ORT's window whenever the divergence has
 * no second, narrower dip between coarse samples away from the best one.
 *
 * Deviations: the histogram is ORT's single-batch layout re-binned from the canonical one (a value moves by
 * at most one fine bin, under half a reference bin); ORT's multi-batch growth of the bin count is
 * order-dependent and not reproduced. Arithmetic is float64 where ORT uses float32, which can only matter
 * between candidates whose divergences tie to float32 precision.
 */

import { type Histogram, capacityFor, createHistogram, foldIntoHistogram, mergeHistograms } from './histogram.ts';
import { type ReferenceHistogram, centeredReference } from './histogram-views.ts';
import { clipToData } from './percentile.ts';
import { type CalibrationRange, type Collector, assertSameOptions, validateNumBins, withDefaults } from './types.ts';

export interface EntropyOptions {
  /** Bins of the reference histogram over [-max |x|, max |x|]. */
  readonly numBins: number;
  /** Bins of the simulated quantized distribution (ORT `num_quantized_bins`). */
  readonly numQuantizedBins: number;
}

export interface EntropyState {
  readonly method: 'Entropy';
  readonly options: EntropyOptions;
  readonly hist: Histogram;
}

/** TensorRT's 2048 bins (ORT and Quark default to 128, which cannot search, see above), ORT's 128 quantized bins. */
export const ENTROPY_DEFAULTS: EntropyOptions = { numBins: 2048, numQuantizedBins: 128 };

const SMOOTHING_EPS = 0.0001;

/** Windows the coarse pass of the search tries (about; see module note). */
export const COARSE_CANDIDATES = 64;

/**
 * ORT `smooth_distribution` in place on d[0..len): zeros become eps, non-zeros give back eps·zeros/nonzeros.
 * False where ORT returns None (all zero) or its assertions would fail (a value not left positive).
 */
function smooth(d: Float64Array, len: number): boolean {
  let zeros = 0;
  for (let i = 0; i < len; i++) if (d[i] === 0) zeros++;
  const nonzeros = len - zeros;
  if (nonzeros === 0) return false;
  const eps1 = (SMOOTHING_EPS * zeros) / nonzeros;
  if (!(eps1 < 1)) return false;
  for (let i = 0; i < len; i++) {
    d[i] = d[i] === 0 ? SMOOTHING_EPS : d[i] - eps1;
    if (!(d[i] > 0)) return false;
  }
  return true;
}

/** KL(p ‖ q) after normalising both to sum 1 (ORT `entropy`, natural log); all entries positive. */
function klDivergence(p: Float64Array, q: Float64Array, len: number): number {
  let sp = 0;
  let sq = 0;
  for (let i = 0; i < len; i++) {
    sp += p[i];
    sq += q[i];
  }
  let kl = 0;
  for (let i = 0; i < len; i++) {
    const pk = p[i] / sp;
    kl += pk * Math.log(pk / (q[i] / sq));
  }
  return kl;
}

/** ORT `get_entropy_threshold` on a reference histogram: the chosen window's edges, before clipping. */
export function entropyThreshold(ref: ReferenceHistogram, numQuantizedBins: number): [number, number] {
  const hist = ref.counts;
  const n = hist.length;
  const zero = Math.floor(n / 2);
  const halfQ = Math.floor(numQuantizedBins / 2);
  if (zero < halfQ) throw new RangeError(`numBins (${n}) must be at least numQuantizedBins (${numQuantizedBins})`);
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + hist[i];
  const total = prefix[n];
  const p = new Float64Array(n);
  const q = new Float64Array(n);
  const nonzero = new Uint8Array(n);
  const quantized = new Float64Array(numQuantizedBins);

  /** KL(p ‖ q) of the window of 2i + 1 bins around the zero bin (Infinity where smoothing fails). */
  const divergence = (i: number): number => {
    const start = zero - i;
    const end = Math.min(zero + i + 1, n);
    const len = end - start;
    for (let k = 0; k < len; k++) p[k] = hist[start + k];
    p[0] += prefix[start];
    p[len - 1] += total - prefix[end];
    for (let k = 0; k < len; k++) nonzero[k] = p[k] !== 0 ? 1 : 0;

    // Merge the window (without outliers) into numQuantizedBins groups of `merged` bins; the remainder
    // goes to the last group, and q spreads each group over its non-empty bins (remainder bins stay 0).
    const merged = Math.floor(len / numQuantizedBins);
    quantized.fill(0);
    for (let g = 0; g < numQuantizedBins; g++) {
      let s = 0;
      for (let k = g * merged; k < (g + 1) * merged; k++) s += hist[start + k];
      quantized[g] = s;
    }
    for (let k = numQuantizedBins * merged; k < len; k++) quantized[numQuantizedBins - 1] += hist[start + k];
    q.fill(0, 0, len);
    for (let g = 0; g < numQuantizedBins; g++) {
      let norm = 0;
      for (let k = g * merged; k < (g + 1) * merged; k++) norm += nonzero[k];
      if (norm !== 0) {
        const v = Math.trunc(quantized[g] / norm);
        for (let k = g * merged; k < (g + 1) * merged; k++) q[k] = v;
      }
    }
    return smooth(p, len) && smooth(q, len) ? klDivergence(p, q, len) : Infinity;
  };

  // numpy.argmin: the first smallest divergence, or the first candidate when all are infinite. Coarse to
  // fine: every `stride`-th window first, then each window within a stride of the best (see module note).
  const stride = Math.max(1, Math.floor((zero - halfQ) / COARSE_CANDIDATES));
  let best = Infinity;
  let bestI = -1;
  const consider = (i: number) => {
    const kl = divergence(i);
    if (bestI < 0 || kl < best || (kl === best && i < bestI)) {
      best = kl;
      bestI = i;
    }
  };
  for (let i = halfQ; i <= zero; i += stride) consider(i);
  if (stride > 1) {
    const centre = bestI;
    for (let i = Math.max(halfQ, centre - stride + 1); i <= Math.min(zero, centre + stride - 1); i++) if (i !== centre) consider(i);
  }
  const bestStart = zero - bestI;
  const bestEnd = Math.min(zero + bestI + 1, n);
  return [ref.edges[bestStart], ref.edges[bestEnd]];
}

export const EntropyCollector: Collector<EntropyOptions, EntropyState, CalibrationRange> = {
  method: 'Entropy',
  defaults: ENTROPY_DEFAULTS,
  create(options) {
    const o = withDefaults(ENTROPY_DEFAULTS, options);
    validateNumBins(o.numBins);
    validateNumBins(o.numQuantizedBins);
    if (o.numQuantizedBins > o.numBins) {
      throw new RangeError(`numQuantizedBins (${o.numQuantizedBins}) must not exceed numBins (${o.numBins})`);
    }
    return { method: 'Entropy', options: o, hist: createHistogram(capacityFor(o.numBins)) };
  },
  update(state, values) {
    foldIntoHistogram(state.hist, values);
    return state;
  },
  merge(a, b) {
    assertSameOptions('Entropy', a.options, b.options);
    return { method: 'Entropy', options: a.options, hist: mergeHistograms(a.hist, b.hist) };
  },
  finalize(state) {
    const { hist, options } = state;
    if (hist.count === 0) return { min: 0, max: 0 };
    const ref = centeredReference(hist, options.numBins);
    return clipToData(entropyThreshold(ref, options.numQuantizedBins), hist);
  },
};
