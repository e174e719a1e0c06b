/**
 * The histogram's hot loops (histogram.ts) on WebAssembly SIMD: the extremes of a batch four values at a time, and
 * the counting of values into the bins with their extremes taken in the same pass. Every histogram method reads
 * each activation value once or twice a run, and the plain TypeScript loops cost about 4 ns a value for a count and
 * 2.5 for a scan on Node 20 (bench/README.md, suite calibration-speed): that, not the threshold searches, was most
 * of what Entropy and Percentile added to MinMax's time.
 *
 * The kernel (histogramKernel.wat, built into histogramKernelWasm.ts by scripts/build-kernels.ts) reads its
 * own memory only, so a batch is copied in by blocks of BLOCK values (a block fits in the second-level cache) and
 * counted into int32 counters there (four interleaved copies, so that runs of one value do not queue on one
 * counter); the counters are added into the histogram's float64 bins at the end of the batch, over the bins the
 * batch can have reached. A value goes to bin floor(x · 2^-e) − offset computed in float64 as the TypeScript does,
 * so the bins are the same, bin for bin (histogram.test.ts pins the two paths together).
 *
 * Non-finite values take part in the kernel's extremes (a NaN or ±Infinity there tells the caller to take its
 * checked path) and are never counted. Where WebAssembly SIMD is missing, `histogramKernel()` is null and the
 * TypeScript loops serve. Pure: WebAssembly is a language built-in, not a runtime.
 */
import { HISTOGRAM_KERNEL_WASM } from './histogramKernelWasm.ts';
import { countedHigh, countedLow } from './scan.ts';

/** Values copied into the kernel's memory at a time (64 KiB). */
export const BLOCK = 16384;

interface KernelExports {
  readonly memory: WebAssembly.Memory;
  extremes(at: number, n: number): void;
  countInside(counts: number, at: number, n: number, inv: number, offset: number, cap: number, abs: number): number;
  countInside32(counts: number, at: number, n: number, inv: number, offset: number, cap: number, abs: number): number;
  countOutside(
    counts: number,
    at: number,
    n: number,
    oldInv: number,
    oldOffset: number,
    inv: number,
    offset: number,
    cap: number,
    abs: number,
  ): number;
}

/** A batch's extremes as float32 (NaN or ±Infinity where the batch holds non-finite values). */
export interface KernelExtremes {
  min: number;
  max: number;
  absMin: number;
}

export interface HistogramKernel {
  /** The batch's extremes; the returned object is reused by the next call. */
  extremes(values: Float32Array): KernelExtremes;
  /**
   * Adds to `bins` (capacity bins, value x in bin floor(x · inv) − offset; |x| when `abs`) every value that lands in
   * them, and returns how many did not (outside, or not finite) with the batch's extremes in `last`.
   */
  countInside(bins: Float64Array, values: Float32Array, inv: number, offset: number, abs: boolean): number;
  /** Extremes of the last `countInside` (reused object). */
  readonly last: KernelExtremes;
  /**
   * Adds to `bins` (new layout inv, offset) each finite value the old layout (oldInv, oldOffset) could not hold;
   * `reach` is the first and last bin the finite values can reach at the new layout.
   */
  countOutside(
    bins: Float64Array,
    values: Float32Array,
    oldInv: number,
    oldOffset: number,
    inv: number,
    offset: number,
    abs: boolean,
    reach: [number, number],
  ): void;
}

/** Whether the extremes are all finite (a NaN or ±Infinity among them means the batch holds non-finite values). */
export function finiteExtremes(e: KernelExtremes): boolean {
  return e.min - e.min === 0 && e.max - e.max === 0 && e.absMin - e.absMin === 0;
}

/**
 * Whether float32 gives every value the bin float64 gives it, so that the kernel may count four values at a time in
 * float32 (`countInside32`): x · inv is exact in float32 when inv = 2^-e is a float32 power of two ≥ 1 (a product
 * never falls below x's own magnitude, so never rounds to a subnormal or to zero, and an overflow to Infinity lands
 * outside as it should), and floor(x · inv) − offset is exact for the values inside the bins when the layout's bin
 * numbers offset … offset + capacity stay below 2^23 in magnitude. Values further out compute bins ≥ 2^23 away from
 * the layout, outside either way.
 */
export function float32Exact(inv: number, offset: number, capacity: number): boolean {
  return inv >= 1 && inv <= 2 ** 126 && Math.abs(offset) + capacity < 2 ** 23;
}

function kernelOn(k: KernelExports): HistogramKernel {
  // Memory: [0, 16) results, then the counters (4 int32 a bin), then one block of values.
  let capacity = 0;
  const countsAt = 16;
  let valuesAt = 16;
  let counts = new Int32Array(0);
  let values32 = new Float32Array(0);
  let results = new Float32Array(k.memory.buffer, 0, 3);
  const layoutFor = (cap: number) => {
    if (cap <= capacity) return;
    capacity = cap;
    valuesAt = countsAt + 16 * cap;
    const need = valuesAt + 4 * BLOCK;
    const pages = Math.ceil(need / 65536) - k.memory.buffer.byteLength / 65536;
    if (pages > 0) k.memory.grow(pages);
    counts = new Int32Array(k.memory.buffer, countsAt, 4 * cap);
    counts.fill(0); // the old block of values may lie where the counters now are
    values32 = new Float32Array(k.memory.buffer, valuesAt, BLOCK);
    results = new Float32Array(k.memory.buffer, 0, 3);
  };
  layoutFor(1024);
  const ext: KernelExtremes = { min: Infinity, max: -Infinity, absMin: Infinity };
  const last: KernelExtremes = { min: Infinity, max: -Infinity, absMin: Infinity };

  /** Adds the counters of bins [from, to] into `bins` and clears them. */
  const flush = (bins: Float64Array, from: number, to: number) => {
    const lo = from < 0 ? 0 : from;
    const hi = to > bins.length - 1 ? bins.length - 1 : to;
    for (let j = lo; j <= hi; j++) {
      const q = 4 * j;
      const c = counts[q] + counts[q + 1] + counts[q + 2] + counts[q + 3];
      if (c !== 0) {
        bins[j] += c;
        counts[q] = counts[q + 1] = counts[q + 2] = counts[q + 3] = 0;
      }
    }
  };
  const fold = (into: KernelExtremes, first: boolean) => {
    const lo = results[0];
    const hi = results[1];
    const alo = results[2];
    // Math.min/max propagate NaN, as the kernel's f32x4.min/max do.
    into.min = first ? lo : Math.min(into.min, lo);
    into.max = first ? hi : Math.max(into.max, hi);
    into.absMin = first ? alo : Math.min(into.absMin, alo);
  };

  /** Copies `values` into the kernel's memory a block at a time and calls `each(n, first)` for the block of n values there. */
  const byBlocks = (values: Float32Array, each: (n: number, first: boolean) => void) => {
    for (let at = 0; at < values.length; at += BLOCK) {
      const part = values.subarray(at, Math.min(at + BLOCK, values.length));
      values32.set(part);
      each(part.length, at === 0);
    }
  };

  return {
    last,
    extremes(values) {
      ext.min = ext.absMin = Infinity;
      ext.max = -Infinity;
      byBlocks(values, (n, first) => {
        k.extremes(valuesAt, n);
        fold(ext, first);
      });
      return ext;
    },
    countInside(bins, values, inv, offset, abs) {
      layoutFor(bins.length);
      let outside = 0;
      const count = float32Exact(inv, offset, bins.length) ? k.countInside32 : k.countInside;
      byBlocks(values, (n, first) => {
        outside += count(countsAt, valuesAt, n, inv, offset, bins.length, abs ? 1 : 0);
        fold(last, first);
      });
      // Counted values lie between the bins of the batch's extremes (all of them where some extreme is not finite).
      if (finiteExtremes(last)) {
        flush(
          bins,
          Math.floor(countedLow(last, abs) * inv) - offset,
          Math.floor(countedHigh(last, abs) * inv) - offset,
        );
      } else flush(bins, 0, bins.length - 1);
      return outside;
    },
    countOutside(bins, values, oldInv, oldOffset, inv, offset, abs, reach) {
      layoutFor(bins.length);
      byBlocks(values, (n) =>
        k.countOutside(countsAt, valuesAt, n, oldInv, oldOffset, inv, offset, bins.length, abs ? 1 : 0),
      );
      flush(bins, reach[0], reach[1]);
    },
  };
}

let instance: HistogramKernel | null | undefined;

/** The kernel, or null where this JavaScript has no WebAssembly SIMD (the TypeScript loops serve then). */
export function histogramKernel(): HistogramKernel | null {
  if (instance !== undefined) return instance;
  const available = typeof WebAssembly === 'object' && WebAssembly.validate(HISTOGRAM_KERNEL_WASM);
  instance = available
    ? kernelOn(
        new WebAssembly.Instance(new WebAssembly.Module(HISTOGRAM_KERNEL_WASM)).exports as unknown as KernelExports,
      )
    : null;
  return instance;
}
