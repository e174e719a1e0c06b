/**
 * The layer's reconstruction loss (layerProblem.ts) kept up to date while only some entries of the weight vectors
 * change: the optimizers' inner loop. Recomputing G·v for every vector at every step (M·k² per step) was most of
 * fine-tuning's cost, yet few entries change late in a run: AdaRound's soft weights stop changing one by one as
 * their rounding variable saturates (h(V) clipped to 0 or 1, so no gradient, and Adam's momentum then only carries V
 * further out), and AdaQuant's hard-quantized weights change only where a code flips.
 *
 * So G·v is kept only at the *watched* entries (those whose gradient is still wanted), and a changed entry l of
 * vector m adds its column of G, restricted to m's watched entries, times its change Δ: a step over a vector with
 * a of its k entries watched and changing costs a² instead of k². The loss moves with each change as well
 * (ΔL = 2Δ(Gv)_l + G_ll·Δ² − 2c_l·Δ, exact in exact arithmetic). When so many entries change that the full
 * product is cheaper (the first steps), the full product serves, on the injected runtime when there is one
 * (onnxruntime's MatMul, measured RUNTIME_SPEEDUP times faster per multiply-add than the update). Pure.
 */
import {
  RUNTIME_PRODUCT_MIN_K,
  gramForm,
  multiplyGram,
  usesFactor,
  type GramProduct,
  type GramProductFactory,
  type LayerProblem,
} from './layerProblem.ts';

/**
 * The update's cost model, in multiply-adds of its own loop (7 ns each on the 2-core test machine under load): the
 * runtime's full product does RUNTIME_SPEEDUP of them in that time (onnxruntime-node's float32 MatMul, single
 * thread: 24 G multiply-adds per CPU second on a 384 × 385 · 385 × 385 product against 0.15 G for the update), the
 * TypeScript full product (contiguous rows) TS_FULL_SPEEDUP; a changed entry costs ENTRY_COST besides its
 * multiply-adds, and a full product one per entry copied. bench/README.md, suite finetune-cost.
 */
export const RUNTIME_SPEEDUP = 150;
const TS_FULL_SPEEDUP = 3;
const ENTRY_COST = 20;
/** A channel gets its own block of G once at most this fraction of its entries is watched (memory ≤ 1/16 of G per channel)… */
const BLOCK_BELOW = 0.25;
/**
 * …and never more than this many entries a side: a block of 720 on the recognizer's 60 × 2881 convolution was 4 MB per
 * channel, rebuilt as it shrank from G's scattered rows (1.7 of its 2.3 s in the objective). The block and the row
 * paths make the same products in the same order, so where the blocks go changes no value (tests/incrementalObjective).
 */
export const BLOCK_MAX = 128;
/** …and a smaller one once its watched count falls below this fraction of the block's (each rebuild costs about one update). */
const REBUILD_BELOW = 0.7;
/**
 * A channel's list of watched columns is compacted once its unwatched (stale) entries exceed this share of its watched
 * ones (or a block is due): compacting every channel that lost an entry at every step walked every watched entry each
 * step (AdaRound drops a few per channel per step), the largest cost of the recognizer's 480 × 481 layers. A stale
 * entry costs only its multiply-add in an update (its G v is never read), and the cost model counts watched entries.
 */
export const STALE_SHARE = 1 / 8;

export interface IncrementalObjective {
  /** The current vectors (outChannels × k: each channel's weights, then its bias change). */
  readonly value: Float64Array;
  /** (G v) at every watched entry (other entries hold stale values). */
  readonly gv: Float64Array;
  /** c of every entry: the gradient at a watched entry is 2·(gv − c). */
  readonly cross: Float64Array;
  /** Σ_m L_m at `value`. */
  loss(): number;
  /**
   * Moves to `next`, which differs from `value` at most at the `count` entries listed in `changed`, all watched.
   * `allChange`: the caller knows (nearly) every listed entry changes (AdaRound's soft weights), so the choice between
   * the update and the full product need not look at each entry.
   */
  update(next: Float64Array, changed: Int32Array, count: number, allChange?: boolean): Promise<void>;
  /** The loss at `next` (same rule as `update`) without moving. */
  lossAt(next: Float64Array, changed: Int32Array, count: number): Promise<number>;
  /** Stops keeping (G v) at entry `at`: its gradient is no longer wanted (it may still change once, before this). */
  unwatch(at: number): void;
  release(): Promise<void>;
}

/** Where the objective keeps its value, G v and c (n zeros each), when the caller wants them in its own memory. */
export interface ObjectiveVectors {
  readonly value: Float64Array;
  readonly gv: Float64Array;
  readonly cross: Float64Array;
  /**
   * τ + Σ value·(gv − 2c) over every entry, added from τ one entry at a time in increasing order as the objective's own
   * sum is (so with the same bits): a kernel's, where the vectors live in its memory.
   */
  readonly loss?: (tau: number) => number;
}

/**
 * The objective for `p` with the entries flagged in `watched` watched; the first `update` sets every entry and runs
 * the full product (the vectors start unknown). `vectors`: where its vectors live (a kernel's memory); else its own.
 */
export async function incrementalObjective(
  p: LayerProblem,
  watched: Uint8Array,
  factory?: GramProductFactory,
  staleShare = STALE_SHARE,
  blockMax = BLOCK_MAX,
  vectors?: ObjectiveVectors,
): Promise<IncrementalObjective> {
  const l = p.rows.layer;
  const k = p.groups[0]?.k ?? 0;
  const outPerGroup = p.outPerGroup;
  const channels = l.outChannels;
  const n = channels * k;
  const products: GramProduct[] = [];
  if (factory && k >= RUNTIME_PRODUCT_MIN_K) {
    for (let g = 0; g < p.groups.length; g++) products.push(await factory(gramForm(p, g), k, outPerGroup));
  }
  // The runtime's product by G's factor costs 2·rows·k per vector (gramForm).
  const perVector = products.length > 0 && usesFactor(p) ? 2 * p.rows.rows * k : k * k;
  const fullCost = (channels * perVector) / (products.length > 0 ? RUNTIME_SPEEDUP : TS_FULL_SPEEDUP) + n;
  const cross = vectors?.cross ?? new Float64Array(n);
  let tau = 0;
  p.groups.forEach((g, gi) => {
    cross.set(g.cross, gi * outPerGroup * k);
    for (const t of g.targetSq) tau += t;
  });
  const value = vectors?.value ?? new Float64Array(n);
  const gv = vectors?.gv ?? new Float64Array(n);
  const flags = Uint8Array.from(watched);
  // Channel m's listed columns are list[m·k .. m·k + counts[m]), in increasing order: its watched ones (live[m] of
  // them) and, until the list is next compacted, some no longer watched (see STALE_SHARE).
  const list = new Int32Array(n);
  const counts = new Int32Array(channels);
  // Channels whose watched count changed since their list was last looked at (and those never looked at), listed once:
  // only they can have become due for compaction or a block.
  const dirty = new Uint8Array(channels).fill(1);
  const dirtyList = Int32Array.from({ length: channels }, (_, m) => m);
  let dirtyCount = channels;
  const blockBelow = Math.min(k * BLOCK_BELOW, blockMax);
  for (let m = 0; m < channels; m++) for (let i = 0; i < k; i++) if (flags[m * k + i]) list[m * k + counts[m]++] = i;
  const live = Int32Array.from(counts);
  // Σ_m live[m]² and Σ_m live[m]: the update's cost when every watched entry changes.
  let countSq = 0;
  let countSum = 0;
  for (let m = 0; m < channels; m++) {
    countSq += live[m] * live[m];
    countSum += live[m];
  }
  // A channel with few watched columns gets its own copy of G restricted to them (sub[m], subSize[m]² values; entry
  // `at` sits at row posOf[at], and list entry s at column local[s]): the update then reads one small block that
  // stays in cache instead of scattered values of G's rows. Rebuilt as the channel's watched set shrinks.
  const sub: (Float64Array | undefined)[] = new Array(channels);
  const subSize = new Int32Array(channels);
  // A channel with a block also keeps G v at the block's positions (subGv[m], valid where watched): the update then
  // runs over the block's row contiguously, and the watched values go back to gv once per step (synced[m] = 0 while
  // gv holds newer values than the block, after a full product).
  const subGv: (Float64Array | undefined)[] = new Array(channels);
  const synced = new Uint8Array(channels);
  const touched = new Int32Array(channels);
  const local = new Int32Array(n);
  const posOf = new Int32Array(n);
  let known = false;
  const buffer = products.length > 0 ? new Float32Array(outPerGroup * k) : undefined;
  // With one group the runtime's input buffer can follow `value`: `mirrored` while it holds every entry of `value` as
  // float32, so that a full product after sparse changes copies only the changed entries (the same float32 values).
  let mirrored = false;
  const mirror = (changed: Int32Array, count: number) => {
    if (mirrored) for (let q = 0; q < count; q++) buffer![changed[q]] = value[changed[q]];
  };
  const scratchValue = new Float64Array(n);
  const scratchGv = new Float64Array(n);

  /** out = G v at every entry of v. */
  const product = async (v: Float64Array, out: Float64Array): Promise<void> => {
    const reuse = mirrored && v === value;
    mirrored = buffer !== undefined && p.groups.length === 1 && v === value;
    for (let gi = 0; gi < p.groups.length; gi++) {
      const first = gi * outPerGroup * k;
      const span = outPerGroup * k;
      if (buffer) {
        // set() rounds each float64 to float32 as the element assignment does, in one native loop.
        if (!reuse) buffer.set(v.subarray(first, first + span));
        out.set(await products[gi].multiply(buffer), first);
      } else {
        multiplyGram(p.groups[gi].gram, k, v, first, outPerGroup, out.subarray(first, first + span));
      }
    }
  };
  /** The loss of v given g = G v at every entry. */
  const sum = (v: Float64Array, g: Float64Array): number => {
    let total = tau;
    for (let at = 0; at < n; at++) total += v[at] * (g[at] - 2 * cross[at]);
    return total;
  };
  /** The loss at `value`; undefined right after a full product until asked for (gv is then valid at every entry). */
  let loss: number | undefined;
  const currentLoss = () => (loss ??= vectors?.loss ? vectors.loss(tau) : sum(value, gv));

  const structure: Watch = {
    k,
    outPerGroup,
    grams: p.groups.map((g) => g.gram),
    cross,
    list,
    local,
    counts,
    posOf,
    sub,
    subSize,
    subGv,
    synced,
    touched,
  };

  /**
   * Drops unwatched columns from the lists of the channels that lost more than `staleShare` of them or whose block of
   * G is due, and rebuilds those blocks. Only channels that lost a watched entry since they were last looked at can
   * have become due (nothing else moves live, counts or the blocks), so only those are looked at.
   */
  const compact = () => {
    for (let d = 0; d < dirtyCount; d++) {
      const m = dirtyList[d];
      dirty[m] = 0;
      const blockDue = live[m] <= blockBelow && (!sub[m] || live[m] < subSize[m] * REBUILD_BELOW);
      if (!blockDue && counts[m] - live[m] <= live[m] * staleShare) continue;
      const base = m * k;
      let kept = 0;
      for (let s = base; s < base + counts[m]; s++) {
        if (!flags[base + list[s]]) continue;
        list[base + kept] = list[s];
        local[base + kept++] = local[s];
      }
      counts[m] = kept;
      if (blockDue) {
        const gram = p.groups[(m / outPerGroup) | 0].gram;
        const block = new Float64Array(kept * kept);
        for (let a = 0; a < kept; a++) {
          const row = list[base + a] * k;
          for (let b = 0; b < kept; b++) block[a * kept + b] = gram[row + list[base + b]];
          local[base + a] = a;
          posOf[base + list[base + a]] = a;
        }
        sub[m] = block;
        subSize[m] = kept;
        subGv[m] = new Float64Array(kept);
        synced[m] = 0;
      }
    }
    dirtyCount = 0;
  };

  /** Whether the full product is cheaper than the incremental update for these changes. */
  const fullIsCheaper = (next: Float64Array, changed: Int32Array, count: number, v: Float64Array) =>
    updateCostPasses(next, changed, count, v, live, k, fullCost);

  return {
    value,
    gv,
    cross,
    loss: currentLoss,
    async update(next, changed, count, allChange = false) {
      compact();
      const full =
        !known ||
        (allChange && count === countSum
          ? countSq + ENTRY_COST * count > fullCost
          : fullIsCheaper(next, changed, count, value));
      if (full) {
        if (!known) value.set(next);
        else if (mirrored) {
          // The value and the runtime's float32 copy of it in one pass (the same values as copying one, then the other).
          for (let q = 0; q < count; q++) {
            const at = changed[q];
            buffer![at] = value[at] = next[at];
          }
        } else for (let q = 0; q < count; q++) value[changed[q]] = next[changed[q]];
        known = true;
        await product(value, gv);
        synced.fill(0);
        loss = undefined;
      } else {
        loss = applyInPlace(structure, next, changed, count, value, gv, currentLoss());
        mirror(changed, count);
      }
    },
    async lossAt(next, changed, count) {
      compact();
      scratchValue.set(value);
      if (!known || fullIsCheaper(next, changed, count, value)) {
        for (let q = 0; q < count; q++) scratchValue[changed[q]] = next[changed[q]];
        await product(scratchValue, scratchGv);
        return sum(scratchValue, scratchGv);
      }
      // The same update on copies: the blocks' values and their sync flags are put back after.
      scratchGv.set(gv);
      const kept = subGv.map((x) => x?.slice());
      const keptSynced = synced.slice();
      const total = applyInPlace(structure, next, changed, count, scratchValue, scratchGv, currentLoss());
      kept.forEach((x, m) => x && subGv[m]!.set(x));
      synced.set(keptSynced);
      return total;
    },
    unwatch(at) {
      if (!flags[at]) return;
      flags[at] = 0;
      const m = (at / k) | 0;
      countSq -= 2 * live[m] - 1; // live² → (live − 1)²
      countSum--;
      live[m]--;
      if (!dirty[m]) {
        dirty[m] = 1;
        dirtyList[dirtyCount++] = m;
      }
    },
    async release() {
      await Promise.all(products.map((x) => x.release()));
    },
  };
}

/**
 * Whether the incremental update's multiply-adds for moving `v` to `next` at the listed entries (each entry that differs
 * costs its channel's watched count `live` plus ENTRY_COST) exceed `limit`. The sum stops as soon as it does: only the
 * comparison is read, and when most entries change (AdaQuant's first steps, and every step of a layer whose codes keep
 * flipping) the rest of the list need not be walked. The same answer as summing the whole list (the sum only grows).
 */
export function updateCostPasses(
  next: Float64Array,
  changed: Int32Array,
  count: number,
  v: Float64Array,
  live: Int32Array,
  k: number,
  limit: number,
): boolean {
  let cost = 0;
  for (let q = 0; q < count; q++) {
    const at = changed[q];
    if (next[at] !== v[at] && (cost += live[(at / k) | 0] + ENTRY_COST) > limit) return true;
  }
  return false;
}

/** What applyInPlace reads: the layer's G and c, and which entries each channel watches (see incrementalObjective). */
interface Watch {
  readonly k: number;
  readonly outPerGroup: number;
  readonly grams: readonly Float64Array[];
  readonly cross: Float64Array;
  readonly list: Int32Array;
  readonly local: Int32Array;
  readonly counts: Int32Array;
  readonly posOf: Int32Array;
  readonly sub: readonly (Float64Array | undefined)[];
  readonly subSize: Int32Array;
  readonly subGv: readonly (Float64Array | undefined)[];
  readonly synced: Uint8Array;
  /** Scratch: the channels whose block values changed this step. */
  readonly touched: Int32Array;
}

/**
 * Applies the changes at the listed entries (next − v) to (v, g), whose loss is `total`; returns the new loss. A
 * changed entry adds its column of G restricted to its channel's watched entries, times its change; a channel with a
 * block updates its G v at the block's positions (subGv: one contiguous row of the block per changed entry, the
 * positions no longer watched included), and the watched values go back to g once the step's changes are in. A
 * module-level function with everything in locals: the hot loop then reads no closure context.
 */
function applyInPlace(
  w: Watch,
  next: Float64Array,
  changed: Int32Array,
  count: number,
  v: Float64Array,
  g: Float64Array,
  total: number,
): number {
  const { k, outPerGroup, grams, cross, list, local, counts, posOf, sub, subSize, subGv, synced, touched } = w;
  let touchedCount = 0;
  let last = -1;
  for (let q = 0; q < count; q++) {
    const at = changed[q];
    const d = next[at] - v[at];
    if (d === 0) continue;
    const m = (at / k) | 0;
    const col = at - m * k;
    const gram = grams[(m / outPerGroup) | 0];
    const base = m * k;
    const block = sub[m];
    if (block !== undefined) {
      const gs = subGv[m]!;
      const size = subSize[m];
      const end = base + counts[m];
      if (!synced[m]) {
        for (let s = base; s < end; s++) gs[local[s]] = g[base + list[s]];
        synced[m] = 1;
      }
      if (m !== last) {
        touched[touchedCount++] = m;
        last = m;
      }
      const pos = posOf[at];
      total += d * (2 * gs[pos] + gram[col * k + col] * d - 2 * cross[at]);
      const row = pos * size;
      for (let a = 0; a < size; a++) gs[a] += block[row + a] * d;
    } else {
      total += d * (2 * g[at] + gram[col * k + col] * d - 2 * cross[at]);
      const end = base + counts[m];
      const row = col * k;
      for (let s = base; s < end; s++) g[base + list[s]] += gram[row + list[s]] * d;
    }
    v[at] = next[at];
  }
  for (let t = 0; t < touchedCount; t++) {
    const m = touched[t];
    const gs = subGv[m]!;
    const base = m * k;
    const end = base + counts[m];
    for (let s = base; s < end; s++) g[base + list[s]] = gs[local[s]];
  }
  return total;
}
