/**
 * What fine-tuning and bias correction made of each layer, kept across runs on one tuning runtime and its samples (the
 * ladder's rungs and its exclusion search's steps). A layer's outcome depends only on its input rows, float and
 * quantized, its own weights, grid and bias, the target it learns and the options; the rows depend only on the
 * computation that produces the layer's input in each model (valueFingerprints.ts) and on how they are sampled. So a run
 * in which all of these are the same as in an earlier one (an exclusion added downstream of the layer, a mixed-precision
 * choice that widens only tensors after it) takes the kept outcome instead of gathering, building and optimizing again,
 * and writes the same codes and bias: the same bytes. The caller makes the key from all of that (quantizeWithRecovery);
 * this only keeps outcomes by key, within a byte budget (once full, further outcomes are not kept and are computed again
 * when needed). Pure.
 */
import type { TuningSummary } from './tuning.ts';

/** One layer's outcome as a run reported and applied it. */
export interface LayerOutcome {
  /** The fine-tuning's summary (absent when the layer was not tuned). */
  readonly tuned?: TuningSummary;
  /** The layer's own rounding error where minRoundingError left it untuned. */
  readonly untuned?: number;
  /** Bias correction's mean output shift before, where it ran. */
  readonly shiftBefore?: number;
  /** The update the run applied: new codes and/or bias (real units). */
  readonly codes?: Int32Array;
  readonly bias?: Float32Array;
}

/** An outcome as kept: its codes in the narrowest integer array that holds them (8-bit weights take a quarter). */
type Kept = Omit<LayerOutcome, 'codes'> & { readonly codes?: Int8Array | Int16Array | Int32Array };

function narrowest(codes: Int32Array): Int8Array | Int16Array | Int32Array {
  let min = 0;
  let max = 0;
  for (const c of codes) {
    if (c < min) min = c;
    else if (c > max) max = c;
  }
  if (min >= -128 && max <= 127) return Int8Array.from(codes);
  if (min >= -32768 && max <= 32767) return Int16Array.from(codes);
  return Int32Array.from(codes);
}

export class TunedLayerMemo {
  private readonly entries = new Map<string, Kept>();
  private bytes = 0;
  private hitCount = 0;
  private refusedCount = 0;

  /** `budgetBytes`: most bytes of codes, biases and curves kept (default 256 MiB). */
  constructor(readonly budgetBytes = 256 * 2 ** 20) {}

  /** The outcome kept under `key` (its codes a fresh Int32Array), or undefined. */
  get(key: string): LayerOutcome | undefined {
    const o = this.entries.get(key);
    if (!o) return undefined;
    this.hitCount++;
    return o.codes ? { ...o, codes: Int32Array.from(o.codes) } : (o as LayerOutcome);
  }

  set(key: string, outcome: LayerOutcome): void {
    if (this.entries.has(key)) return;
    const codes = outcome.codes && narrowest(outcome.codes);
    const size =
      (codes?.byteLength ?? 0) + (outcome.bias?.byteLength ?? 0) + 16 * (outcome.tuned?.curve.length ?? 0) + 256;
    if (this.bytes + size > this.budgetBytes) {
      this.refusedCount++;
      return;
    }
    this.entries.set(key, codes ? { ...outcome, codes } : outcome);
    this.bytes += size;
  }

  /** Layers answered from the memo so far. */
  get hits(): number {
    return this.hitCount;
  }

  /** Outcomes not kept for lack of room. */
  get refused(): number {
    return this.refusedCount;
  }

  /** Bytes held (approximate: arrays plus a fixed overhead an entry). */
  get size(): number {
    return this.bytes;
  }
}
