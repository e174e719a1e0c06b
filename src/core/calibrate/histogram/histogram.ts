/**
 * The histogram every histogram method folds into: fixed capacity, power-of-two bin width, bins aligned to
 * multiples of the width. It exists because the references' histograms cannot be merged in any order.
 *
 * ONNX Runtime (`calibrate.py`, `HistogramCollector.collect_value` / `merge_histogram`) lays the first batch
 * over [-t, t] and, when a later batch reaches further, widens the range by whole old-width bins on each
 * side; Quark's `PowOfTwoCollector.collect_histogram_value` does the same over [min, max]. The bins you end
 * with depend on which batch came first. Here the layout is a pure function of the data seen so far: the
 * width is 2^e for the smallest e (≥ MIN_EXPONENT) at which the data's [min, max] spans at most `capacity`
 * bins, and bin j holds the values x with floor(x / 2^e) = offset + j, offset = floor(min / 2^e). Growing
 * the range only ever doubles the width, and floor(floor(x / 2^e) / 2^d) = floor(x / 2^(e+d)) holds exactly
 * in floating point for power-of-two widths, so coarsening is exact. Hence merge(fold(A), fold(B)) is
 * bit-identical to fold(A ∪ B), whatever the order or grouping.
 *
 * The price: at most `capacity` and more than about `capacity / 2` bins are in use, never a fixed count.
 * Methods that need the reference's own layout (num_bins over [-t, t] or [min, max]) re-bin this one onto it
 * in `histogramViews.ts`; with capacity ≥ 4 × num_bins, each value moves by at most one fine bin, under half
 * a reference bin. Non-finite values (NaN, ±Infinity) are counted in `nonFinite` and otherwise ignored.
 * Knows nothing of methods or quantization.
 */

import { type HistogramKernel, type KernelExtremes, finiteExtremes, histogramKernel } from './histogramKernel.ts';
import { type Extremes, countedHigh, countedLow, scan, scanWithAbs } from './scan.ts';

/** Smallest bin-width exponent. At 2^-200 every float32 value (≥ 2^-149 in magnitude) has its own bin. */
export const MIN_EXPONENT = -200;

export interface Histogram {
  /** Whether the histogram folds |x| (ORT's `collect_absolute_value`) instead of x. */
  readonly abs: boolean;
  /** Number of bins in `bins`. */
  readonly capacity: number;
  /** Bin width is 2^exponent. */
  exponent: number;
  /** Bin j covers [(offset + j)·2^exponent, (offset + j + 1)·2^exponent). */
  offset: number;
  /** Counts (float64: exact up to 2^53 values). */
  bins: Float64Array;
  /** Number of finite values folded. */
  count: number;
  /** Smallest and largest folded value (of |x| when `abs`); +Infinity / -Infinity while empty. */
  min: number;
  max: number;
  /** Smallest and largest finite input value, signed, whatever `abs` says. */
  valueMin: number;
  valueMax: number;
  /** NaN and ±Infinity inputs skipped. */
  nonFinite: number;
}

export function createHistogram(capacity: number, abs = false): Histogram {
  if (!Number.isInteger(capacity) || capacity < 2) {
    throw new RangeError(`histogram capacity must be an integer ≥ 2, got ${capacity}`);
  }
  return {
    abs,
    capacity,
    exponent: MIN_EXPONENT,
    offset: 0,
    bins: new Float64Array(capacity),
    count: 0,
    min: Infinity,
    max: -Infinity,
    valueMin: Infinity,
    valueMax: -Infinity,
    nonFinite: 0,
  };
}

/** 2^e, exact for the integer exponents used here. */
export function pow2(e: number): number {
  return Math.pow(2, e);
}

/** Width of one bin, in real units. */
export function binWidth(h: Histogram): number {
  return pow2(h.exponent);
}

/** How many width-2^e bins aligned at multiples of 2^e it takes to cover [min, max]. */
function spanAt(min: number, max: number, e: number): number {
  const inv = pow2(-e);
  return Math.floor(max * inv) - Math.floor(min * inv) + 1;
}

/** The smallest exponent ≥ MIN_EXPONENT at which [min, max] fits in `capacity` aligned bins. */
export function minimalExponent(min: number, max: number, capacity: number): number {
  if (!(max > min)) return MIN_EXPONENT;
  // span(e) ≈ (max − min) / 2^e and is non-increasing in e: start near the answer, then walk.
  let e = Math.max(MIN_EXPONENT, Math.floor(Math.log2((max - min) / capacity)));
  while (spanAt(min, max, e) > capacity) e++;
  while (e > MIN_EXPONENT && spanAt(min, max, e - 1) <= capacity) e--;
  return e;
}

/** Adds src's counts into `target`, laid out at exponent e ≥ src.exponent and offset `offset`. */
function remapInto(src: Histogram, e: number, offset: number, target: Float64Array): void {
  if (src.count === 0) return;
  const scale = pow2(src.exponent - e);
  const bins = src.bins;
  for (let j = 0; j < bins.length; j++) {
    const c = bins[j];
    if (c !== 0) target[Math.floor((src.offset + j) * scale) - offset] += c;
  }
}

/** -0 → +0, so that states do not depend on which zero arrived first. */
function noNegativeZero(x: number): number {
  return x === 0 ? 0 : x;
}

/**
 * Folds one batch into `h` in place and returns it, with no per-element allocation.
 *
 * A histogram of |x| that holds data first counts a batch in the current layout while taking its extremes,
 * in one pass. When every value landed inside the layout, the layout cannot change (it is a function of
 * the data's [min, max], and a batch inside the bins neither moves the offset nor needs a wider bin), so
 * that one pass is all. Otherwise the values counted stay counted, the bins are re-laid for the new range
 * (exact, see the module note), and a second pass counts the rest: the same bins as counting everything at
 * the new layout. Signed histograms (and empty ones) take two passes, range then counts: for signed data
 * the one-pass loop measured slower than the two (CPU time, Node 20: 18 against 16 ms for 3.2 M values;
 * 13 against 17 ms for |x|).
 */
export function foldIntoHistogram(
  h: Histogram,
  values: Float32Array,
  kernel = values.length >= KERNEL_MIN_VALUES ? histogramKernel() : null,
  seen?: SeenExtremes,
): Histogram {
  if (kernel) return foldWithKernel(h, values, kernel, seen);
  if (h.count > 0 && h.abs) {
    const inside = countInsideAbs(h, values);
    if (inside.outside === 0) return takeInside(h, inside, values.length);
    return foldOutside(h, values);
  }
  const n = values.length;
  const ext = h.abs ? scanWithAbs(values) : scan(values);
  const bad = ext.nonFinite;
  h.nonFinite += bad;
  if (n - bad === 0) return h;
  const inv = relayout(h, ext);
  h.count += n - bad;
  if (bad === 0 && !h.abs) countSigned(h.bins, values, inv, h.offset);
  else if (bad === 0) countAbs(h.bins, values, inv, h.offset);
  else countChecked(h.bins, values, inv, h.offset, h.abs);
  return h;
}

/**
 * Batches at least this long are folded by the WebAssembly kernel (histogramKernel.ts): below it, adding the
 * kernel's counters into the bins (up to `capacity` of them) would cost more than counting in TypeScript.
 */
export const KERNEL_MIN_VALUES = 4096;

/**
 * Hears the extremes the kernel took of a whole batch while folding it, where every value was finite: the numbers
 * `histogramKernel().extremes` gives for the same values (the same float32 minimum and maximum, in any order), so a
 * MinMax fold of the same array can take them instead of scanning it again (collectors/minmax.ts shareBatchExtremes).
 */
export type SeenExtremes = (e: KernelExtremes) => void;

/**
 * `foldIntoHistogram` on the kernel, the same bins as the TypeScript loops: a histogram that holds data counts the
 * batch in its layout while taking the extremes, in one pass, signed or not; when some value did not fit, the
 * layout is widened (exact) and a second pass counts the values the old one could not hold. An empty histogram
 * takes the extremes first. A batch with NaN or ±Infinity takes the checked scan for its finite extremes.
 */
function foldWithKernel(h: Histogram, values: Float32Array, kernel: HistogramKernel, seen?: SeenExtremes): Histogram {
  const n = values.length;
  if (h.count === 0) {
    const e = kernel.extremes(values);
    if (!finiteExtremes(e)) return foldIntoHistogram(h, values, null);
    seen?.(e);
    const inv = relayout(h, { min: e.min, max: e.max, absMin: e.absMin, nonFinite: 0 });
    h.count += n;
    kernel.countInside(h.bins, values, inv, h.offset, h.abs);
    return h;
  }
  const oldInv = pow2(-h.exponent);
  const oldOffset = h.offset;
  const outside = kernel.countInside(h.bins, values, oldInv, oldOffset, h.abs);
  const e = kernel.last;
  if (finiteExtremes(e)) seen?.(e);
  if (outside === 0) return takeInside(h, e, n);
  const ext: Extremes = finiteExtremes(e)
    ? { min: e.min, max: e.max, absMin: e.absMin, nonFinite: 0 }
    : { ...scanWithAbs(values) };
  h.nonFinite += ext.nonFinite;
  const good = n - ext.nonFinite;
  if (good === 0) return h;
  const inv = relayout(h, ext);
  h.count += good;
  const reach: [number, number] = [
    Math.floor(countedLow(ext, h.abs) * inv) - h.offset,
    Math.floor(countedHigh(ext, h.abs) * inv) - h.offset,
  ];
  kernel.countOutside(h.bins, values, oldInv, oldOffset, inv, h.offset, h.abs, reach);
  return h;
}

/** Takes a batch of `n` values, all counted inside h's bins already, with extremes `e`: its range and count into h. */
function takeInside(h: Histogram, e: Omit<Extremes, 'nonFinite'>, n: number): Histogram {
  h.min = noNegativeZero(Math.min(h.min, countedLow(e, h.abs)));
  h.max = noNegativeZero(Math.max(h.max, countedHigh(e, h.abs)));
  h.valueMin = noNegativeZero(Math.min(h.valueMin, e.min));
  h.valueMax = noNegativeZero(Math.max(h.valueMax, e.max));
  h.count += n;
  return h;
}

/** Widens h's range and layout to take a batch of extremes `ext` (finite values; min, max, absMin); returns 2^-exponent. */
function relayout(h: Histogram, ext: Extremes): number {
  const min = noNegativeZero(Math.min(h.min, countedLow(ext, h.abs)));
  const max = noNegativeZero(Math.max(h.max, countedHigh(ext, h.abs)));
  const e = minimalExponent(min, max, h.capacity);
  const inv = pow2(-e);
  const offset = Math.floor(min * inv);
  if (h.count > 0 && (e !== h.exponent || offset !== h.offset)) {
    const target = new Float64Array(h.capacity);
    remapInto(h, e, offset, target);
    h.bins = target;
  }
  h.exponent = e;
  h.offset = offset;
  h.min = min;
  h.max = max;
  h.valueMin = noNegativeZero(Math.min(h.valueMin, ext.min));
  h.valueMax = noNegativeZero(Math.max(h.valueMax, ext.max));
  return inv;
}

/**
 * The second pass of a batch that did not fit an abs histogram's layout: its finite extremes (a scan), a
 * wider layout with the values already counted carried over, then the values outside the old bins counted.
 */
function foldOutside(h: Histogram, values: Float32Array): Histogram {
  const oldInv = pow2(-h.exponent);
  const oldOffset = h.offset;
  const capacity = h.capacity;
  const ext = scanWithAbs(values);
  const bad = ext.nonFinite;
  h.nonFinite += bad;
  const good = values.length - bad;
  if (good === 0) return h;
  const inv = relayout(h, ext);
  h.count += good;
  const bins = h.bins;
  const offset = h.offset;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (x - x !== 0) continue;
    const v = Math.abs(x);
    const old = Math.floor(v * oldInv) - oldOffset;
    if (old >= 0 && old < capacity) continue;
    bins[Math.floor(v * inv) - offset] += 1;
  }
  return h;
}

/** What one counting pass in the current layout saw: a scan's extremes, and the values outside the bins. */
interface Inside extends Omit<Extremes, 'nonFinite'> {
  outside: number;
}
const inside: Inside = { min: Infinity, max: -Infinity, absMin: Infinity, outside: 0 };

// The one-pass loop of an abs histogram: counts each |x| that lands inside the bins and tallies the others
// (beyond the bins, NaN, ±Infinity: the comparisons fail for NaN). Extremes are taken over every value;
// they are only used when nothing was outside, so when every value is finite. Unrolled by four, as the
// counting loops below (the same V8 bounds re-checks).
function countInsideAbs(h: Histogram, values: Float32Array): Inside {
  const bins = h.bins;
  const capacity = h.capacity;
  const inv = pow2(-h.exponent);
  const offset = h.offset;
  const n = values.length;
  let lo = Infinity;
  let hi = -Infinity;
  let alo = Infinity;
  let outside = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    const x0 = values[i];
    const x1 = values[i + 1];
    const x2 = values[i + 2];
    const x3 = values[i + 3];
    lo = x0 < lo ? x0 : lo;
    hi = x0 > hi ? x0 : hi;
    lo = x1 < lo ? x1 : lo;
    hi = x1 > hi ? x1 : hi;
    lo = x2 < lo ? x2 : lo;
    hi = x2 > hi ? x2 : hi;
    lo = x3 < lo ? x3 : lo;
    hi = x3 > hi ? x3 : hi;
    const a0 = Math.abs(x0);
    const a1 = Math.abs(x1);
    const a2 = Math.abs(x2);
    const a3 = Math.abs(x3);
    alo = a0 < alo ? a0 : alo;
    alo = a1 < alo ? a1 : alo;
    alo = a2 < alo ? a2 : alo;
    alo = a3 < alo ? a3 : alo;
    const j0 = Math.floor(a0 * inv) - offset;
    const j1 = Math.floor(a1 * inv) - offset;
    const j2 = Math.floor(a2 * inv) - offset;
    const j3 = Math.floor(a3 * inv) - offset;
    if (j0 >= 0 && j0 < capacity) bins[j0] += 1;
    else outside++;
    if (j1 >= 0 && j1 < capacity) bins[j1] += 1;
    else outside++;
    if (j2 >= 0 && j2 < capacity) bins[j2] += 1;
    else outside++;
    if (j3 >= 0 && j3 < capacity) bins[j3] += 1;
    else outside++;
  }
  for (; i < n; i++) {
    const x = values[i];
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
    const a = Math.abs(x);
    alo = a < alo ? a : alo;
    const j = Math.floor(a * inv) - offset;
    if (j >= 0 && j < capacity) bins[j] += 1;
    else outside++;
  }
  inside.min = lo;
  inside.max = hi;
  inside.absMin = alo;
  inside.outside = outside;
  return inside;
}

// The counting loops, one per case so that each stays small and monomorphic. The caller guarantees that
// every (finite) value lands in [0, capacity). Unrolled by four: on Node 20, V8 re-checks a typed-array
// argument's length on every access (resizable buffers), and the simple loop measured about 3× slower.
function countSigned(bins: Float64Array, values: Float32Array, inv: number, offset: number): void {
  const n = values.length;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    const j0 = Math.floor(values[i] * inv) - offset;
    const j1 = Math.floor(values[i + 1] * inv) - offset;
    const j2 = Math.floor(values[i + 2] * inv) - offset;
    const j3 = Math.floor(values[i + 3] * inv) - offset;
    bins[j0] += 1;
    bins[j1] += 1;
    bins[j2] += 1;
    bins[j3] += 1;
  }
  for (; i < n; i++) bins[Math.floor(values[i] * inv) - offset] += 1;
}

function countAbs(bins: Float64Array, values: Float32Array, inv: number, offset: number): void {
  const n = values.length;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    const j0 = Math.floor(Math.abs(values[i]) * inv) - offset;
    const j1 = Math.floor(Math.abs(values[i + 1]) * inv) - offset;
    const j2 = Math.floor(Math.abs(values[i + 2]) * inv) - offset;
    const j3 = Math.floor(Math.abs(values[i + 3]) * inv) - offset;
    bins[j0] += 1;
    bins[j1] += 1;
    bins[j2] += 1;
    bins[j3] += 1;
  }
  for (; i < n; i++) bins[Math.floor(Math.abs(values[i]) * inv) - offset] += 1;
}

function countChecked(bins: Float64Array, values: Float32Array, inv: number, offset: number, abs: boolean): void {
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (x - x !== 0) continue;
    bins[Math.floor((abs ? Math.abs(x) : x) * inv) - offset] += 1;
  }
}

/** A histogram holding exactly the values of both inputs (which are left untouched). */
export function mergeHistograms(a: Histogram, b: Histogram): Histogram {
  if (a.abs !== b.abs || a.capacity !== b.capacity) {
    throw new RangeError(
      `cannot merge histograms of different kinds (abs ${a.abs}/${b.abs}, capacity ${a.capacity}/${b.capacity})`,
    );
  }
  const out = createHistogram(a.capacity, a.abs);
  out.nonFinite = a.nonFinite + b.nonFinite;
  out.count = a.count + b.count;
  if (out.count === 0) return out;
  out.min = noNegativeZero(Math.min(a.min, b.min));
  out.max = noNegativeZero(Math.max(a.max, b.max));
  out.valueMin = noNegativeZero(Math.min(a.valueMin, b.valueMin));
  out.valueMax = noNegativeZero(Math.max(a.valueMax, b.valueMax));
  out.exponent = minimalExponent(out.min, out.max, out.capacity);
  out.offset = Math.floor(out.min * pow2(-out.exponent));
  remapInto(a, out.exponent, out.offset, out.bins);
  remapInto(b, out.exponent, out.offset, out.bins);
  return out;
}

/**
 * Capacity of the canonical histogram behind a reference of `numBins` bins: at least 4 × numBins, so that
 * fine bins are at most half a reference bin wide (more than capacity / 2 bins are always in use).
 */
export function capacityFor(numBins: number): number {
  return Math.max(1024, 4 * numBins);
}

export function cloneHistogram(h: Histogram): Histogram {
  return { ...h, bins: h.bins.slice() };
}
