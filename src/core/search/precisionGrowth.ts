/**
 * Sizing mixed precision's 16-bit set from measurement instead of a fixed budget: the units the search
 * (./mixedPrecision.ts) measured are ranked (what the search chose first; then, in graph order from the front, every
 * unit whose smallest measured block gained; the units whose block gained nothing or lost last), and the set grows
 * along that ranking, doubling, until a judge on the held-in samples (the user's target metric on the calibration
 * data) says the target is met; then bisection between the last size that missed and the first that met finds the
 * smallest that meets it, as far as time allows. Each size costs one quantization and one judged run, seconds where a
 * search round costs minutes. Float units stay as the search chose them: growth is in 16 bits only.
 *
 * Why graph order and not each block's gain per unit: quantization noise that enters early passes through every later
 * layer, and the units' gains do not add up (a weight gains only once its input activation is wide). On the PP-OCRv4
 * recognizer (A8W8 per channel, attention rules, lines 16–31 held out) the front half of the activation groups with the
 * first 4 weights held 11/16 lines (CER 3.0 %), the back three quarters with the same weights 7/16 (9.3 %), and growth
 * by gain per unit went from 8.3 % CER on the lines it judged at 14 pairs to 8.4 % at 70 (bench/README.md).
 *
 * The judge is injected; must not import a runtime.
 */
import type { QuantConfig } from '../quantize/config.ts';
import { withUnits, type UnitSensitivity } from './mixedPrecision.ts';
import type { PrecisionUnit } from './precisionUnit.ts';

/**
 * The 16-bit candidates (act16 and w16 units), most worth widening first: the units in `first` (the search's choice)
 * in their given order, then those whose smallest measured block gained (a unit's sensitivity as far as group testing
 * resolved it) in graph order (`position`), then the rest (blocks that gained nothing or made the output worse, and
 * units never measured) in graph order.
 */
export function sensitivityRanking(
  units: readonly PrecisionUnit[],
  measured: readonly UnitSensitivity[],
  first: readonly PrecisionUnit[],
  position: (u: PrecisionUnit) => number,
): PrecisionUnit[] {
  const smallest = new Map<PrecisionUnit, { size: number; gain: number }>();
  for (const block of measured) {
    if (block.kind === 'float') continue;
    for (const u of block.units) {
      const known = smallest.get(u);
      if (!known || block.units.length < known.size) smallest.set(u, { size: block.units.length, gain: block.gain });
    }
  }
  const chosen = new Set(first);
  const gains = (u: PrecisionUnit) => (smallest.get(u)?.gain ?? 0) > 0;
  const rest = units.filter((u) => u.kind !== 'float' && !chosen.has(u));
  rest.sort((a, b) => Number(gains(b)) - Number(gains(a)) || position(a) - position(b));
  return [...first.filter((u) => u.kind !== 'float'), ...rest];
}

/** One size measured on the held-in samples. */
export interface GrowthStep {
  /** Units of the ranking at 16 bits. */
  readonly units: number;
  /** Activation Q/DQ pairs and weights among them. */
  readonly act16: number;
  readonly w16: number;
  readonly score: number;
  readonly metrics: Readonly<Record<string, number>>;
  readonly met: boolean;
  readonly seconds: number;
}

export interface GrowthResult {
  /** The configuration of the size chosen: the smallest measured that met the target, else the best measured. */
  readonly config: QuantConfig;
  readonly chosen: GrowthStep;
  readonly met: boolean;
  /** Every size measured, in order. */
  readonly steps: readonly GrowthStep[];
  /** Why growth stopped where it did. */
  readonly stopped: 'met' | 'limit' | 'time';
  /** The ranking grown along: size k is its first k units (what a step's tensors were). */
  readonly ranking: readonly PrecisionUnit[];
  /** Units the ranking holds and the most growth could take. */
  readonly of: number;
  readonly limit: number;
}

export interface GrowthOptions {
  /** The search's chosen configuration (its float exclusions kept at every size). */
  readonly config: QuantConfig;
  /** The 16-bit candidates, most sensitive first (sensitivityRanking); the first `start` are the search's choice. */
  readonly ranking: readonly PrecisionUnit[];
  /** Units at 16 bits to measure first (the search's choice; at least 1). */
  readonly start: number;
  /** The most units growth may take. */
  readonly limit: number;
  /** The target metric on the held-in samples for a configuration. */
  score(config: QuantConfig): Promise<{ score: number; metrics: Readonly<Record<string, number>> }>;
  met(score: number): boolean;
  /** True when no further size may be measured (out of time, cancelled). */
  stop?(): boolean;
  /** Bisection stops when the gap between a miss and a hit is at most this share of the hit's size; default 0.25. */
  readonly resolution?: number;
  onStep?(step: GrowthStep): void;
  now?(): number;
}

/** Grows the 16-bit set along the ranking until the held-in target is met (doubling, then bisection). */
export async function growPrecision(o: GrowthOptions): Promise<GrowthResult> {
  const now = o.now ?? (() => performance.now() / 1000);
  const limit = Math.max(1, Math.min(o.limit, o.ranking.length));
  const steps: GrowthStep[] = [];
  const configAt = (k: number) => withUnits(o.config, o.ranking.slice(0, k));
  const measure = async (k: number): Promise<GrowthStep> => {
    const t = now();
    const taken = o.ranking.slice(0, k);
    const { score, metrics } = await o.score(configAt(k));
    const step: GrowthStep = {
      units: k,
      act16: taken.filter((u) => u.kind === 'act16').reduce((a, u) => a + u.cost, 0),
      w16: taken.filter((u) => u.kind === 'w16').length,
      score,
      metrics,
      met: o.met(score),
      seconds: now() - t,
    };
    steps.push(step);
    o.onStep?.(step);
    return step;
  };
  let stopped: GrowthResult['stopped'] = 'limit';
  let k = Math.max(1, Math.min(o.start, limit));
  let miss = 0;
  let hit: GrowthStep | undefined;
  for (;;) {
    const s = await measure(k);
    if (s.met) {
      hit = s;
      stopped = 'met';
      break;
    }
    miss = k;
    if (k >= limit) break;
    if (o.stop?.()) {
      stopped = 'time';
      break;
    }
    k = Math.min(limit, 2 * k);
  }
  // Bisection between the last miss and the first hit: the smallest size that meets the target, to a resolution.
  const resolution = o.resolution ?? 0.25;
  while (hit && hit.units - miss > Math.max(1, resolution * hit.units) && !o.stop?.()) {
    const s = await measure(Math.round((miss + hit.units) / 2));
    if (s.met) hit = s;
    else miss = s.units;
  }
  const best = hit ?? steps.reduce((a, b) => (better(b, a) ? b : a));
  return {
    config: configAt(best.units),
    chosen: best,
    met: hit !== undefined,
    steps,
    stopped,
    ranking: o.ranking,
    of: o.ranking.length,
    limit,
  };
}

/** A higher score; at an equal score a lower CER, then fewer units. */
function better(a: GrowthStep, b: GrowthStep): boolean {
  if (a.score !== b.score) return Number.isFinite(a.score) && !(a.score < b.score);
  const [ca, cb] = [a.metrics.cer, b.metrics.cer];
  if (Number.isFinite(ca) && Number.isFinite(cb) && ca !== cb) return ca < cb;
  return a.units < b.units;
}
