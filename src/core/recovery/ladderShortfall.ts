/**
 * Why a ladder did not meet its target, said from what the climb itself measured: the mixed-precision rung's growth
 * (each 16-bit set it measured on the held-in samples, and the tensors it had lifted to 16 bits when it still missed),
 * the search's most sensitive units with their measured gain, the chosen set's held-in figure beside its held-out one,
 * and, where the growth missed, every activation at 16 bits measured once (the ceiling: whether the target needs more
 * than 8-bit activations at all) and every weight at 16 bits with 8-bit activations (whether the weights' rounding or the
 * activations' carries the error), and every activation (or weight) on coarser grids between 8 and 16 bits (how many
 * bits the target needs). No text about a particular model: every sentence is built from these numbers.
 * Reads rungs structurally (the ladder's RungResult and ladderMeasure's RungDetail), so the ladder's report can use it
 * without an import cycle. Pure.
 */
import type { GrowthResult } from '../search/precisionGrowth.ts';
import type { MixedPrecisionResult } from '../search/mixedPrecision.ts';
import type { ReportLadderFigure, ReportLadderShortfall } from '../report/report.ts';

/** One configuration judged on the held-in and on the held-out samples. */
interface HeldInAndOut {
  readonly heldIn: { readonly score: number; readonly metrics: Readonly<Record<string, number>> };
  readonly heldOut: { readonly score: number; readonly metrics: Readonly<Record<string, number>> };
}

/** Every activation group at 16 bits, with the weights of the growth's largest set, measured where the growth missed. */
export interface PrecisionCeiling extends HeldInAndOut {
  /** Activation Q/DQ pairs and weights at 16 bits. */
  readonly act16: number;
  readonly w16: number;
}

/** Every weight at 16 bits with the activations at 8 bits, measured beside the ceiling: where the error is, weights or activations. */
export interface WeightCeiling extends HeldInAndOut {
  readonly w16: number;
}

/**
 * Every activation and weight at 16 bits with the activations (or the weights) stepped as a coarser grid
 * (core/quantize/coarserGrids.ts), measured beside the ceilings: how many bits the target needs, between 8 and 16.
 */
export interface GridMeasurement extends HeldInAndOut {
  readonly activationBits: number;
  readonly weightBits: number;
}

/** What of a rung's detail the shortfall reads (ladderMeasure.ts RungDetail). */
interface MixedDetail {
  readonly mixedPrecision?: MixedPrecisionResult;
  readonly growth?: GrowthResult;
  readonly ceiling?: PrecisionCeiling;
  readonly weightCeiling?: WeightCeiling;
  readonly grids?: readonly GridMeasurement[];
}

/** What of a measured rung the shortfall reads (ladder.ts RungResult). */
export interface ShortfallRung {
  readonly rung: {
    readonly index: number;
    readonly label: string;
    readonly recipe: { readonly mixedPrecision?: boolean };
  };
  readonly score: number;
  readonly metrics: Readonly<Record<string, number>>;
  readonly detail?: unknown;
}

/** How many of the search's most sensitive units the report lists. */
export const SHORTFALL_SENSITIVE_UNITS = 8;

const figure = (score: number, metrics: Readonly<Record<string, number>>): ReportLadderFigure =>
  Number.isFinite(metrics.cer) ? { score, cer: metrics.cer } : { score };

/** "0.8125 (CER 2.77 %)". */
function figureText(f: ReportLadderFigure): string {
  const score = Number.isFinite(f.score) ? `${+f.score.toFixed(5)}` : 'undefined';
  return f.cer === undefined ? score : `${score} (CER ${(100 * f.cer).toFixed(2)} %)`;
}

function setText(act16: number, w16: number): string {
  return `${act16} activation Q/DQ pair${act16 === 1 ? '' : 's'}${w16 > 0 ? ` and ${w16} weight${w16 === 1 ? '' : 's'}` : ''}`;
}

/**
 * The shortfall of a climb that did not meet `target` (metric ≥ value): undefined where a rung met it. Reads the
 * mixed-precision rung whose growth went furthest (else the last one measured); `skipped` says why none ran.
 */
export function ladderShortfall(
  target: { readonly metric: string; readonly value: number },
  results: readonly (ShortfallRung & { readonly met: boolean })[],
  skipped: readonly { readonly label: string; readonly reason: string }[],
): ReportLadderShortfall | undefined {
  if (results.some((r) => r.met)) return undefined;
  const goal = `${target.metric} ≥ ${target.value}`;
  const mixed = results.filter(
    (r) => r.rung.recipe.mixedPrecision && (r.detail as MixedDetail | undefined)?.mixedPrecision !== undefined,
  );
  if (mixed.length === 0) {
    const skip = skipped.find((k) => /mixed precision/i.test(k.label));
    return {
      why: [
        `No mixed-precision rung was measured${skip ? ` (${skip.label}: ${skip.reason})` : ''}, so no per-tensor measurement says which tensors keep the model from ${goal}.`,
      ],
      growth: [],
      sensitive: [],
    };
  }
  const furthest = (r: ShortfallRung) => (r.detail as MixedDetail).growth?.steps.length ?? 0;
  const rung = mixed.reduce((a, b) => (furthest(b) > furthest(a) ? b : a), mixed[mixed.length - 1]);
  const detail = rung.detail as MixedDetail;
  const search = detail.mixedPrecision!;
  const growth = detail.growth;
  const sensitive = search.sensitivities
    .filter((s) => s.gain > 0)
    .slice(0, SHORTFALL_SENSITIVE_UNITS)
    .map((s) => ({ kind: s.kind, tensors: s.units.flatMap((u) => u.names), gain: s.gain }));
  const why: string[] = [];
  const heldOut = figure(rung.score, rung.metrics);

  /** A measured configuration's figures for the report, and whether its held-out figure meets the target. */
  const judged = (m: HeldInAndOut) => ({
    heldIn: figure(m.heldIn.score, m.heldIn.metrics),
    heldOut: figure(m.heldOut.score, m.heldOut.metrics),
    met: m.heldOut.score >= target.value,
  });
  const ceiling = detail.ceiling && {
    act16: detail.ceiling.act16,
    w16: detail.ceiling.w16,
    ...judged(detail.ceiling),
  };
  if (ceiling) {
    const set = setText(ceiling.act16, ceiling.w16);
    const heldInMet = ceiling.heldIn.score >= target.value;
    why.push(
      ceiling.met
        ? `Reaching ${goal} needs every activation at 16 bits: with all ${set} at 16 bits the held-out samples read ${figureText(ceiling.heldOut)} (met), the held-in ${figureText(ceiling.heldIn)}${heldInMet ? ' (met)' : ' (not met)'}. That is 16-bit activations with 8-bit weights (A16W8), not an 8-bit model.`
        : `Even every activation at 16 bits misses ${goal}: with all ${set} at 16 bits the held-out samples read ${figureText(ceiling.heldOut)}, the held-in ${figureText(ceiling.heldIn)}. What is left is in the 8-bit weights or the parts kept in float, beyond what 16-bit activations remove.`,
    );
  }

  const weightCeiling = detail.weightCeiling && { w16: detail.weightCeiling.w16, ...judged(detail.weightCeiling) };
  if (weightCeiling) {
    const weights = `all ${weightCeiling.w16} weight${weightCeiling.w16 === 1 ? '' : 's'} at 16 bits and every activation at 8`;
    why.push(
      weightCeiling.met
        ? `With ${weights} the held-out samples meet ${goal} (${figureText(weightCeiling.heldOut)}; held in ${figureText(weightCeiling.heldIn)}): the weights' rounding is what keeps the 8-bit model short.`
        : ceiling && ceiling.heldOut.score > weightCeiling.heldOut.score
          ? `The 8-bit activations carry more of the error than the 8-bit weights: with ${weights} the held-out samples read ${figureText(weightCeiling.heldOut)} (held in ${figureText(weightCeiling.heldIn)}), against ${figureText(ceiling.heldOut)} with every activation at 16 bits.`
          : `With ${weights} the held-out samples read ${figureText(weightCeiling.heldOut)} (held in ${figureText(weightCeiling.heldIn)}), short of ${goal}.`,
    );
  }

  const grids = detail.grids?.map((g) => ({
    activationBits: g.activationBits,
    weightBits: g.weightBits,
    ...judged(g),
  }));
  if (grids && grids.length > 0) why.push(gridsWhy(grids, goal));

  let lifted: ReportLadderShortfall['lifted'];
  if (growth && growth.steps.length > 0) {
    const largest = growth.steps.reduce((a, b) => (b.units > a.units ? b : a));
    const taken = growth.ranking.slice(0, largest.units);
    lifted = {
      activations: taken.filter((u) => u.kind === 'act16').flatMap((u) => u.names),
      weights: taken.filter((u) => u.kind === 'w16').flatMap((u) => u.names),
    };
    const best = growth.chosen;
    const reason =
      growth.stopped === 'time'
        ? 'the time budget stopped it'
        : `its limit is ${growth.limit} of the ${growth.of} units it may widen (more is what the 16-bit formats are for)`;
    if (!growth.met) {
      why.push(
        `The mixed-precision rung (${rung.rung.index}) grew the 16-bit set over ${growth.steps.length} size${growth.steps.length === 1 ? '' : 's'} on the held-in samples, up to ${setText(largest.act16, largest.w16)} (listed), and none met ${goal}; ${reason}. Its best held-in figure was ${figureText(figure(best.score, best.metrics))} at ${setText(best.act16, best.w16)}.`,
      );
      const heldIn = figure(best.score, best.metrics);
      if (Number.isFinite(heldIn.score) && Number.isFinite(heldOut.score) && heldOut.score > heldIn.score)
        why.push(
          `At the chosen precisions the held-in samples read worse than the held-out ones (held in ${figureText(heldIn)}, held out ${figureText(heldOut)}): the growth judges on the held-in samples, so it could not see the target met${heldOut.score >= target.value ? ' although the held-out samples met it' : ''}.`,
        );
    }
  } else {
    const c = search.chosen;
    why.push(
      `The mixed-precision rung (${rung.rung.index}) measured the search's choice only (${setText(search.budget.act16.used, c.w16.length)}${c.float.length ? `, ${c.float.length} nodes in float` : ''}, held out ${figureText(heldOut)}); its set was not grown${search.metric ? ' (a task target is judged on the evaluation samples only)' : ''}.`,
    );
  }
  if (sensitive.length > 0 && !ceiling)
    why.push(
      `The units the search measured most sensitive are listed with their gain; widening them did not reach ${goal} within what was measured.`,
    );
  return {
    why,
    rung: rung.rung.index,
    growth: (growth?.steps ?? []).map((s) => ({
      act16: s.act16,
      w16: s.w16,
      met: s.met,
      ...figure(s.score, s.metrics),
    })),
    ...(growth ? { growthStopped: growth.stopped } : {}),
    ...(lifted ? { lifted } : {}),
    sensitive,
    ...(growth ? { chosen: { heldIn: figure(growth.chosen.score, growth.chosen.metrics), heldOut } } : {}),
    ...(ceiling ? { ceiling } : {}),
    ...(weightCeiling ? { weightCeiling } : {}),
    ...(grids && grids.length > 0 ? { grids } : {}),
  };
}

type JudgedGrid = NonNullable<ReportLadderShortfall['grids']>[number];

/**
 * How many bits the target needs, said from the coarser grids measured: for the activations (every weight at 16 bits)
 * and for the weights (every activation at 16 bits), the coarsest grid that met the target held out and the finer one
 * that missed, or that even the finest measured missed.
 */
function gridsWhy(grids: readonly JudgedGrid[], goal: string): string {
  const kindText = (kind: 'activation' | 'weight') => {
    const other = kind === 'activation' ? 'weight' : 'activation';
    const measured = grids
      .filter((g) =>
        kind === 'activation'
          ? g.weightBits === 16 && g.activationBits < 16
          : g.activationBits === 16 && g.weightBits < 16,
      )
      .map((g) => ({ bits: kind === 'activation' ? g.activationBits : g.weightBits, g }))
      .sort((a, b) => a.bits - b.bits);
    if (measured.length === 0) return undefined;
    const list = measured
      .map(({ bits, g }) => `${bits} bits ${figureText(g.heldOut)}${g.met ? ' (met)' : ''}`)
      .join(', ');
    const coarsestMet = measured.find(({ g }) => g.met);
    const conclusion = coarsestMet
      ? `so the ${kind}s need about ${coarsestMet.bits} bits, ${coarsestMet.bits - 8} more than 8`
      : `so the ${kind}s need more than ${measured[measured.length - 1].bits} bits`;
    return `with every ${other} at 16 bits and every ${kind} on a coarser grid the held-out samples read ${list}: ${conclusion}`;
  };
  const parts = [kindText('activation'), kindText('weight')].filter((t): t is string => t !== undefined);
  return `Measured on coarser grids (16-bit Q/DQ stepped as fewer bits, not clipped at their ends), against ${goal}: ${parts.join('; ')}.`;
}
