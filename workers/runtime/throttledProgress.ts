/**
 * Progress callbacks thinned for a worker: a run reports after every sample, the page needs a few updates a second
 * (each crosses the worker boundary and re-renders). Shared by the calibration and evaluation workers.
 */

/**
 * `callback` at most every `ms` milliseconds; always when a phase finishes (`done` reaches `total`) and whenever
 * `always(p)` holds (a search's measured step). A no-op without a callback.
 */
export function throttledProgress<P extends { readonly done: number; readonly total: number }>(
  callback: ((p: P) => void) | undefined,
  ms = 100,
  always: (p: P) => boolean = () => false,
): (p: P) => void {
  let last = -Infinity;
  return (p) => {
    if (!callback) return;
    const now = performance.now();
    if (now - last < ms && p.done < p.total && !always(p)) return;
    last = now;
    callback(p);
  };
}
