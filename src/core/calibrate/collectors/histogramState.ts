/**
 * The update and merge every collector whose state is one histogram and its options shares (Percentile, Entropy,
 * MinMSE, power-of-two MinMSE, Distribution): values are folded into the histogram, and two states merge bin by bin
 * when their options agree (CollectorMismatchError otherwise). Each collector keeps its own create and finalize.
 */
import { foldIntoHistogram, mergeHistograms, type Histogram } from '../histogram/histogram.ts';
import { assertSameOptions } from './types.ts';

/** A collector's state that is one histogram of the values seen, with the options it was created with. */
export interface HistogramState<M extends string, O extends object> {
  readonly method: M;
  readonly options: O;
  readonly hist: Histogram;
}

/** `update` and `merge` for the histogram state of `method`. */
export function histogramUpdateAndMerge<M extends string, O extends object>(method: M) {
  return {
    update<S extends HistogramState<M, O>>(state: S, values: Float32Array): S {
      foldIntoHistogram(state.hist, values);
      return state;
    },
    merge(a: HistogramState<M, O>, b: HistogramState<M, O>): HistogramState<M, O> {
      assertSameOptions(method, a.options, b.options);
      return { method, options: a.options, hist: mergeHistograms(a.hist, b.hist) };
    },
  };
}
