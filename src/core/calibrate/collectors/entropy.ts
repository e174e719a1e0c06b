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
 * histogram, so Entropy returns the MinMax range; docs/NOTES.md records exactly that. So the default
 * here is TensorRT's 2048 bins (about 960 candidate windows), and configurations default NumBins to 2048 too.
 *
 * Speed: each candidate costs O(window) in ORT, which tries all of them, O(num_bins²) per tensor. Here a
 * candidate costs O(num_quantized_bins) (prefix sums, `windowDivergence`), and the search goes coarse to
 * fine: about `COARSE_CANDIDATES` windows evenly spaced, then every window within one stride of the best of
 * those. It returns ORT's window whenever the divergence has no second, narrower dip between coarse samples
 * away from the best one (on the UltraFace and YuNet fixtures: the same range on all 287 tensors as the
 * O(window) search it replaced, in a tenth of the time).
 *
 * Deviations: the histogram is ORT's single-batch layout re-binned from the canonical one (a value moves by
 * at most one fine bin, under half a reference bin); ORT's multi-batch growth of the bin count is
 * order-dependent and not reproduced. Arithmetic is float64 where ORT uses float32, which can only matter
 * between candidates whose divergences tie to float32 precision. The zero bin's spike of exact zeros is
 * taken out before the search, as NVIDIA's pytorch-quantization does (`withoutZeroSpike`).
 */

import { histogramUpdateAndMerge } from './histogramState.ts';
import { type Histogram, capacityFor, createHistogram } from '../histogram/histogram.ts';
import { type ReferenceHistogram, centeredReference } from '../histogram/histogramViews.ts';
import { clipToData } from './percentile.ts';
import { type CalibrationRange, type Collector, validateNumBins, withDefaults } from './types.ts';

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
 * KL(p ‖ q) of ORT's candidate window of 2i + 1 bins around the zero bin, as a function of i (valid for
 * numQuantizedBins / 2 ≤ i ≤ numBins / 2; Infinity where ORT's smoothing fails).
 *
 * Each candidate's KL(p ‖ q) is computed from prefix sums instead of by building p and q: smoothing keeps
 * the sums of p and q, and within a merge group q is one value v_g (ORT writes it over the whole group, the
 * empty bins of p included, or leaves the group 0). With p′, q′ the smoothed values (p′ = eps where p = 0,
 * else p − eps1; likewise q),
 *   KL = N / S + ln(Sq / S),  N = Σ p′ ln p′ − Σ_{g: v_g>0} ln q′_g · P_g − ln eps · (S − Σ_{g: v_g>0} P_g),
 * with S the window's total, Sq = Σ v_g·merged, and P_g the sum of p′ over group g. Σ p′ ln p′ over the
 * inner non-empty bins comes from prefix sums too, by expanding (p − e) ln(p − e) = p ln p − e (ln p + 1)
 * + e²/(2p) + O(e³/p²) with e = eps1 = 1e-4 · zeros / non-zeros < 0.21 and integer counts p ≥ 1: the
 * neglected part is under 2e-3 in N, so under 2e-3 / S in KL. So each window costs O(numQuantizedBins)
 * (one logarithm a group) instead of ORT's O(window) arrays and logarithms; otherwise the same quantities,
 * summed in another order (float64), and Infinity where ORT's smoothing returns None.
 */
export function windowDivergence(ref: ReferenceHistogram, numQuantizedBins: number): (i: number) => number {
  const hist = ref.counts;
  const n = hist.length;
  const zero = Math.floor(n / 2);
  const halfQ = Math.floor(numQuantizedBins / 2);
  if (zero < halfQ) throw new RangeError(`numBins (${n}) must be at least numQuantizedBins (${numQuantizedBins})`);
  // Prefix sums over the bins: counts, non-empty bins, and over non-empty bins p ln p, ln p + 1 and 1 / p.
  const prefix = new Float64Array(n + 1);
  const nonzeroPrefix = new Float64Array(n + 1);
  const pLogP = new Float64Array(n + 1);
  const logP1 = new Float64Array(n + 1);
  const invP = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) {
    const p = hist[i];
    const ln = p !== 0 ? Math.log(p) : 0;
    prefix[i + 1] = prefix[i] + p;
    nonzeroPrefix[i + 1] = nonzeroPrefix[i] + (p !== 0 ? 1 : 0);
    pLogP[i + 1] = pLogP[i] + p * ln;
    logP1[i + 1] = logP1[i] + (p !== 0 ? ln + 1 : 0);
    invP[i + 1] = invP[i] + (p !== 0 ? 1 / p : 0);
  }
  const total = prefix[n];
  const logEps = Math.log(SMOOTHING_EPS);
  const spread = new Float64Array(numQuantizedBins);
  const groupP = new Float64Array(numQuantizedBins);
  const groupNonzero = new Float64Array(numQuantizedBins);

  /** KL(p ‖ q) of the window of 2i + 1 bins around the zero bin (Infinity where ORT's smoothing fails). */
  const divergence = (i: number): number => {
    const start = zero - i;
    const end = Math.min(zero + i + 1, n);
    const len = end - start;
    const last = len - 1;
    const leftOut = prefix[start];
    const rightOut = total - prefix[end];
    // p's end bins hold the outliers; whether they are non-zero can differ from the histogram's.
    const pFirst = hist[start] + leftOut + (last === 0 ? rightOut : 0);
    const pLast = last === 0 ? pFirst : hist[end - 1] + rightOut;
    const firstFix = (pFirst !== 0 ? 1 : 0) - (hist[start] !== 0 ? 1 : 0);
    const lastFix = last === 0 ? 0 : (pLast !== 0 ? 1 : 0) - (hist[end - 1] !== 0 ? 1 : 0);
    const nonzeroP = nonzeroPrefix[end] - nonzeroPrefix[start] + firstFix + lastFix;
    const zerosP = len - nonzeroP;
    if (nonzeroP === 0) return Infinity;
    const eps1 = (SMOOTHING_EPS * zerosP) / nonzeroP;
    if (!(eps1 < 1)) return Infinity;

    // Groups of `merged` bins; q spreads each group's count (without outliers, the remainder bins added to
    // the last group) over the group's non-zero bins, truncated; the remainder bins get q = 0.
    const merged = Math.floor(len / numQuantizedBins);
    let sumQ = 0;
    let nonzeroQ = 0;
    for (let g = 0; g < numQuantizedBins; g++) {
      const a = start + g * merged;
      const b = a + merged;
      let count = prefix[b] - prefix[a];
      if (g === numQuantizedBins - 1) count += prefix[end] - prefix[b];
      let nz = nonzeroPrefix[b] - nonzeroPrefix[a];
      let p = prefix[b] - prefix[a];
      if (g === 0) {
        nz += firstFix;
        p += leftOut + (last === 0 ? rightOut : 0);
      }
      if (last !== 0 && b === end) {
        nz += lastFix;
        p += rightOut;
      }
      const v = nz !== 0 ? Math.trunc(count / nz) : 0;
      spread[g] = v;
      groupNonzero[g] = nz;
      groupP[g] = p;
      if (v !== 0) {
        sumQ += v * merged;
        nonzeroQ += merged;
      }
    }
    if (nonzeroQ === 0) return Infinity;
    const eps1q = (SMOOTHING_EPS * (len - nonzeroQ)) / nonzeroQ;
    if (!(eps1q < 1)) return Infinity;

    // Σ p′ ln p′ over the non-empty bins: the end bins exactly, the inner ones by the expansion of
    // (p − e) ln(p − e) around p to second order in e = eps1 (see the module note for its error).
    let n1 = 0;
    const a = start + 1;
    const b = end - 1;
    if (b > a) n1 = pLogP[b] - pLogP[a] - eps1 * (logP1[b] - logP1[a]) + 0.5 * eps1 * eps1 * (invP[b] - invP[a]);
    if (pFirst !== 0) n1 += (pFirst - eps1) * Math.log(pFirst - eps1);
    if (last !== 0 && pLast !== 0) n1 += (pLast - eps1) * Math.log(pLast - eps1);
    n1 += zerosP * SMOOTHING_EPS * logEps;

    let withQ = 0;
    let crossQ = 0;
    for (let g = 0; g < numQuantizedBins; g++) {
      const v = spread[g];
      if (v === 0) continue;
      const qs = v - eps1q;
      if (!(qs > 0)) return Infinity;
      const pg = groupP[g] - eps1 * groupNonzero[g] + SMOOTHING_EPS * (merged - groupNonzero[g]);
      withQ += pg;
      crossQ += pg * Math.log(qs);
    }
    const numerator = n1 - crossQ - logEps * (total - withQ);
    return numerator / total + Math.log(sumQ / total);
  };
  return divergence;
}

/** ORT `get_entropy_threshold` on a reference histogram: the chosen window's edges, before clipping. */
export function entropyThreshold(ref: ReferenceHistogram, numQuantizedBins: number): [number, number] {
  const n = ref.counts.length;
  const zero = Math.floor(n / 2);
  const halfQ = Math.floor(numQuantizedBins / 2);
  const divergence = windowDivergence(ref, numQuantizedBins);
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
    for (let i = Math.max(halfQ, centre - stride + 1); i <= Math.min(zero, centre + stride - 1); i++)
      if (i !== centre) consider(i);
  }
  const bestStart = zero - bestI;
  const bestEnd = Math.min(zero + bestI + 1, n);
  return [ref.edges[bestStart], ref.edges[bestEnd]];
}

/**
 * The reference histogram with the bin holding zero given its upper neighbour's count, as NVIDIA's
 * pytorch-quantization does before its entropy search ("ignore the zero bin as it has lots of zeros from
 * ReLU"). After a ReLU most values are exactly zero; with that spike in p, the divergence favours windows
 * that render the spike well and clips the positive tail hard (UltraFace: ReLU outputs cut to 6 % of their
 * maximum, held-out cosine 0.99977 against MinMax's 0.99996). ORT keeps the spike; this is a departure.
 */
export function withoutZeroSpike(ref: ReferenceHistogram): ReferenceHistogram {
  const zero = Math.floor(ref.counts.length / 2);
  if (zero + 1 >= ref.counts.length) return ref;
  const counts = ref.counts.slice();
  counts[zero] = counts[zero + 1];
  return { counts, edges: ref.edges };
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
  ...histogramUpdateAndMerge<'Entropy', EntropyOptions>('Entropy'),
  finalize(state) {
    const { hist, options } = state;
    if (hist.count === 0) return { min: 0, max: 0 };
    const ref = withoutZeroSpike(centeredReference(hist, options.numBins));
    return clipToData(entropyThreshold(ref, options.numQuantizedBins), hist);
  },
};
