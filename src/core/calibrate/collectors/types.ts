/**
 * The contract every statistics collector honours, and the names callers choose them by.
 *
 * Calibration runs the float model over hundreds of images and folds every exposed tensor into a running
 * statistic. Batches are spread over Web Workers and arrive in any order, so a collector is four pure
 * functions over a plain, structured-cloneable state (plain objects, numbers, typed arrays, bigints):
 * `create`, `update` (fold one batch), `merge` (combine two partial states, in any order and grouping) and
 * `finalize` (the range, in real units). `merge(fold(A), fold(B))` must equal `fold(A ∪ B)`; each collector
 * documents where and by how much it departs from its reference to make that hold.
 * This module holds types and option checks only; it must not grow algorithms.
 */
import { StudioError } from '../../onnx/errors.ts';

/** Method names, as a configuration spells them (Quark's `CalibMethod` names, plus the power-of-two pair). */
export type CalibrationMethod =
  | 'MinMax'
  | 'NonOverflow'
  | 'Percentile'
  | 'Entropy'
  | 'Distribution'
  | 'MinMSE'
  | 'PowerOfTwoMinMSE'
  | 'LayerwisePercentile'
  | 'ConsumerMSE';

/** A calibrated range in real units: the values a tensor's quantization grid must cover. */
export interface CalibrationRange {
  readonly min: number;
  readonly max: number;
}

/**
 * A statistics collector. `update` folds a batch into `state` in place and returns it (the state is an
 * accumulator the caller owns); `merge` returns a new state and leaves both inputs untouched; `finalize`
 * reads the state without changing it.
 */
export interface Collector<
  Options,
  State extends { readonly method: CalibrationMethod },
  Result extends CalibrationRange,
> {
  readonly method: State['method'];
  /** Default options, with the reference each default comes from documented at its definition. */
  readonly defaults: Readonly<Options>;
  create(options?: Partial<Options>): State;
  update(state: State, values: Float32Array): State;
  merge(a: State, b: State): State;
  finalize(state: State): Result;
}

/** Two states that cannot be merged (different methods, options or histogram capacities). */
export class CollectorMismatchError extends StudioError {
  override readonly name = 'CollectorMismatchError';
}

/** Throws CollectorMismatchError unless two option objects agree on every key. */
export function assertSameOptions(method: string, a: object, b: object): void {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const same =
    ka.length === kb.length &&
    ka.every((k) => {
      const va = (a as Record<string, unknown>)[k];
      const vb = (b as Record<string, unknown>)[k];
      if (Array.isArray(va) && Array.isArray(vb)) return va.length === vb.length && va.every((v, i) => v === vb[i]);
      return va === vb;
    });
  if (!same) {
    throw new CollectorMismatchError(
      `${method}: cannot merge states collected with different options (${JSON.stringify(a)} vs ${JSON.stringify(b)})`,
    );
  }
}

/**
 * Options over defaults, where an option given as `undefined` keeps its default (callers pass optional
 * configuration fields straight through).
 */
export function withDefaults<T extends object>(defaults: T, options?: Partial<T>): T {
  const out = { ...defaults };
  if (options) {
    for (const [k, v] of Object.entries(options)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

export function validatePercentile(p: number): void {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be in [0, 100], got ${p}`);
}

export function validateNumBins(n: number, least = 1): void {
  if (!Number.isInteger(n) || n < least) throw new RangeError(`numBins must be an integer ≥ ${least}, got ${n}`);
}
