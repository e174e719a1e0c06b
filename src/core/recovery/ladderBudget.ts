/**
 * The ladder's time budget: what each rung is expected to cost before it runs, and the parsing of a budget
 * ("15m", "90s", "1h30m"). An estimate comes from the rungs already measured where one of the same kind exists
 * (screening, fine-tuning, mixed precision, the exclusion search), else from the model's size and the images
 * (`priorCosts`), scaled by how the measured screening rungs compared with the prior's own screening figure (the
 * machine's speed and load). climbLadder skips, and lists, a rung whose estimate does not fit in what is left.
 * Pure arithmetic: no runtime, no clock.
 */
import { StudioError } from '../onnx/errors.ts';
import type { CalibrationMethod, FinetuneAlgorithm } from '../quantize/config.ts';
import { defaultSensitivitySamples } from '../search/mixedPrecision.ts';

/** What the estimate reads of a rung's recipe (ladder.ts RungRecipe). */
export interface CostedRecipe {
  readonly finetune: FinetuneAlgorithm | null;
  readonly exclusions: boolean;
  readonly mixedPrecision?: boolean;
  readonly calibrationMethod?: CalibrationMethod;
  /** Bias correction without fine-tuning: costed as a fine-tuning rung's layer data without its iterations. */
  readonly biasCorrection?: boolean;
  /** CLE changes the float model, so its layer inputs (what fine-tuning rungs share) are another model's. */
  readonly cle?: boolean;
}

/** What the estimate reads of a measured rung (ladder.ts RungResult). */
export interface MeasuredRung {
  readonly rung: { readonly index: number; readonly recipe: CostedRecipe };
  readonly seconds: number;
  /**
   * Of `seconds`, the work later rungs with the same float model reuse instead of redoing: a fine-tuning rung's
   * gathering of the float model's layer inputs (kept in the ladder's FloatRowCache).
   */
  readonly sharedSeconds?: number;
  readonly error?: string;
}

/** A bad --time-budget ("15 minutes", "-3m"): named for the page and the command line. */
export class TimeBudgetError extends StudioError {
  override readonly name = 'TimeBudgetError';
}

const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/** Seconds of "15m", "90s", "1h30m", "2.5m" or a bare number of seconds; TimeBudgetError otherwise. */
export function parseTimeBudget(text: string): number {
  const t = text.trim().toLowerCase();
  if (/^\d+(\.\d+)?$/.test(t)) return positive(Number(t), text);
  const parts = [...t.matchAll(/(\d+(?:\.\d+)?)\s*([hms])/g)];
  if (
    parts.length === 0 ||
    parts
      .map((p) => p[0])
      .join('')
      .replace(/\s/g, '') !== t.replace(/\s/g, '')
  ) {
    throw new TimeBudgetError(`time budget "${text}": give a duration such as 15m, 90s or 1h30m`);
  }
  return positive(
    parts.reduce((s, p) => s + Number(p[1]) * UNIT_SECONDS[p[2]], 0),
    text,
  );
}

function positive(seconds: number, text: string): number {
  if (!(seconds > 0) || !Number.isFinite(seconds))
    throw new TimeBudgetError(`time budget "${text}": give a duration above zero`);
  return seconds;
}

/** "1 min 05 s", "42 s", "1 h 02 min". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** What a rung costs like: screening (calibrate, quantize, judge), fine-tuning, the mixed-precision search, the exclusion search. */
export type RungKind = 'screen' | 'finetune' | 'mixed' | 'exclusions';

export function rungKind(recipe: CostedRecipe): RungKind {
  if (recipe.exclusions) return 'exclusions';
  if (recipe.finetune || recipe.biasCorrection) return 'finetune';
  if (recipe.mixedPrecision) return 'mixed';
  return 'screen';
}

/** The model and data facts the prior reads. */
export interface CostFacts {
  /** Weights in the model (elements). */
  readonly parameters: number;
  readonly calibrationSamples: number;
  readonly evaluationSamples: number;
  /** Fine-tuning iterations per layer (FastFinetune NumIterations). */
  readonly iterations: number;
  /** The mixed-precision search's largest number of measurements. */
  readonly mixedMeasurements: number;
  /**
   * The calibration samples each mixed-precision measurement judges on (mixedSensitivitySamples); default
   * MIXED_FITTED_SAMPLES, what the per-measurement share was fitted at.
   */
  readonly sensitivitySamples?: number;
  /** The exclusion search's largest number of measurements. */
  readonly exclusionSteps: number;
}

/** Seconds per kind before anything was measured. */
export type CostPrior = Readonly<Record<RungKind, number>>;

/**
 * Seconds of a screening rung per weight and per model run, fitted on YOLOX-nano (0.9 M weights, 16 calibration
 * and 8 evaluation images: 7–20 s a screening rung on this machine, bench/results/ladder.json).
 */
const SCREEN_SECONDS_PER_WEIGHT_RUN = 3e-7;
/** A screening rung's seconds that do not grow with the model (sessions, the model's preparation): the prior's floor. */
const SCREEN_FIXED_SECONDS = 1;
/**
 * A fine-tuning rung's extra seconds per iteration, as a share of a screening rung's part that grows with the model
 * (its seconds less SCREEN_FIXED_SECONDS): YOLOX-nano at 200 iterations, 22–96 s against 7–11 s screening
 * (bench/results/ladder.json). Of the whole screening rung, the fixed second made MNIST (6 k weights) at 50,000
 * iterations 25 minutes before anything was measured, for a rung of 3 s (AdaRound) to a minute (AdaQuant).
 */
export const FINETUNE_SHARE_PER_ITERATION = 0.03;
/**
 * A mixed-precision measurement (quantize, run on a few calibration samples) as a share of a screening rung (YOLOX-nano:
 * 66 s for ~60 measurements, 8 s screening), on MIXED_FITTED_SAMPLES samples; it grows with the samples judged (a
 * decision target's 16: defaultSensitivitySamples), taken as all of it, since the runs dominate (an upper figure).
 */
const MIXED_SHARE_PER_MEASUREMENT = 0.12;
/** The samples MIXED_SHARE_PER_MEASUREMENT was fitted on (defaultSensitivitySamples for a cosine target then and now). */
const MIXED_FITTED_SAMPLES = defaultSensitivitySamples();

/**
 * The calibration samples the ladder's mixed-precision rung judges each measurement on for a `metric` target (as
 * chooseMixedPrecision takes them: defaultSensitivitySamples of the metric, at most the calibration samples).
 */
export function mixedSensitivitySamples(metric: string | undefined, calibrationSamples: number): number {
  return Math.max(1, Math.min(calibrationSamples, defaultSensitivitySamples(metric)));
}

/**
 * A bias-correction rung's cost as a share of a fine-tuning rung's: it gathers the same layer data but runs no
 * iterations (the recognizer: 129 s against AdaRound's 196 s at 1000 iterations, at different loads; bench/README.md).
 */
const BIAS_CORRECTION_SHARE = 0.5;

/** The prior: from the model's size and the images only. */
export function priorCosts(f: CostFacts): CostPrior {
  // A screening rung runs the float model on the calibration images (with every tensor an output, about 1.5 runs)
  // and both models on the evaluation images.
  const runs = 1.5 * f.calibrationSamples + 2 * f.evaluationSamples;
  const grows = SCREEN_SECONDS_PER_WEIGHT_RUN * f.parameters * runs;
  const screen = SCREEN_FIXED_SECONDS + grows;
  return {
    screen,
    finetune: screen + FINETUNE_SHARE_PER_ITERATION * f.iterations * grows,
    mixed:
      screen *
      (1 +
        MIXED_SHARE_PER_MEASUREMENT *
          ((f.sensitivitySamples ?? MIXED_FITTED_SAMPLES) / MIXED_FITTED_SAMPLES) *
          f.mixedMeasurements),
    exclusions: screen * Math.max(1, f.exclusionSteps),
  };
}

/** The mixed-precision search's most measurements in the ladder (chooseMixedPrecision's default). */
export const LADDER_MIXED_MEASUREMENTS = 100;
/** The exclusion search's most measurements in the ladder unless told (qstudio ladder --max-exclusion-steps). */
export const LADDER_EXCLUSION_STEPS = 10;

/**
 * The ladder's prior for a model of `parameters` weights (elements, as the model summary counts them): priorCosts with
 * the ladder's own search limits, its mixed-precision rung judged on the samples a `metric` target takes (a decision
 * target's 16, not 4). The climb plans with it (ladderMeasure.ts ladderCostPrior); the recovery card shows it before a
 * climb starts.
 */
export function ladderPrior(
  parameters: number,
  f: {
    calibrationSamples: number;
    evaluationSamples: number;
    iterations: number;
    exclusionSteps?: number;
    metric?: string;
  },
): CostPrior {
  return priorCosts({
    parameters,
    calibrationSamples: f.calibrationSamples,
    evaluationSamples: f.evaluationSamples,
    iterations: f.iterations,
    mixedMeasurements: LADDER_MIXED_MEASUREMENTS,
    sensitivitySamples: mixedSensitivitySamples(f.metric, f.calibrationSamples),
    exclusionSteps: f.exclusionSteps ?? LADDER_EXCLUSION_STEPS,
  });
}

export interface RungEstimate {
  readonly seconds: number;
  /** What the figure rests on ("like rung 3", "the model's size and the images, scaled by the screening rungs"). */
  readonly basis: string;
  /**
   * The seconds of the least of it that gives a result, where that is less (the exclusion search: one measurement; the
   * deadline then stops it with the best it measured): a rung is skipped for the budget only when this does not fit.
   */
  readonly firstResult?: number;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The expected seconds of `recipe` given what the ladder measured. Same kind measured: their mean (for fine-tuning,
 * the same algorithm's where measured; for screening, rungs with the same ranges method, since Sequential ranges cost
 * several MinMax calibrations). Otherwise the prior, scaled by measured screening time over the prior's.
 *
 * `startsFrom`, for the exclusion search: the measured rung whose configuration it starts from. Each of its
 * measurements quantizes as that rung did, so where that rung cost more than a screening rung (it fine-tunes) each step
 * costs as much: UltraFace from mixed precision + AdaRound (4.9 s), 10 steps took 47 s where a screening rung's worth
 * a step (1.2 s) said 12 s, and the climb ran 35 s past its estimate into the deadline.
 */
export function estimateRung(
  recipe: CostedRecipe,
  measured: readonly MeasuredRung[],
  prior: CostPrior,
  startsFrom?: MeasuredRung,
): RungEstimate {
  const kind = rungKind(recipe);
  const ok = measured.filter((r) => !r.error && rungKind(r.rung.recipe) === kind);
  const like = (rs: readonly MeasuredRung[]): RungEstimate => ({
    seconds: mean(rs.map((r) => r.seconds)),
    basis:
      rs.length === 1 ? `like rung ${rs[0].rung.index}` : `the mean of rungs ${rs.map((r) => r.rung.index).join(', ')}`,
  });
  const correcting = recipe.biasCorrection === true && !recipe.finetune;
  // What a fine-tuning rung paid once for every later rung on the same float model (its float layer inputs) is not
  // paid again by one with the same CLE setting.
  const reusing = (r: MeasuredRung): MeasuredRung =>
    r.sharedSeconds && (r.rung.recipe.cle === true) === (recipe.cle === true)
      ? { ...r, seconds: Math.max(0, r.seconds - r.sharedSeconds) }
      : r;
  if (kind === 'finetune') {
    const same = ok.filter(
      (r) =>
        r.rung.recipe.finetune === recipe.finetune &&
        (r.rung.recipe.biasCorrection === true) === (recipe.biasCorrection === true),
    );
    if (same.length > 0) return like(same.map(reusing));
    // A bias-correction rung's seconds say little of a fine-tuning rung's iterations: only fine-tuning rungs count.
    const tuned = ok.filter((r) => r.rung.recipe.finetune).map(reusing);
    if (tuned.length > 0) {
      const e = like(tuned);
      return correcting
        ? {
            seconds: BIAS_CORRECTION_SHARE * e.seconds,
            basis: `${Math.round(BIAS_CORRECTION_SHARE * 100)} % of ${e.basis.replace(/^like /, '')}`,
          }
        : e;
    }
  } else if (kind === 'screen') {
    const same = ok.filter((r) => (r.rung.recipe.calibrationMethod ?? null) === (recipe.calibrationMethod ?? null));
    if (same.length > 0) return like(same);
  } else if (ok.length > 0) {
    return like(ok);
  }
  const screens = measured.filter(
    (r) => !r.error && rungKind(r.rung.recipe) === 'screen' && !r.rung.recipe.calibrationMethod,
  );
  const share = correcting ? BIAS_CORRECTION_SHARE : 1;
  if (screens.length === 0) return { seconds: share * prior[kind], basis: "the model's size and the images" };
  const screenSeconds = mean(screens.map((r) => r.seconds));
  const speed = screenSeconds / prior.screen;
  // A screening rung with another ranges method than any measured: a few calibrations' worth more.
  const factor = (kind === 'screen' ? 3 : 1) * share;
  const scaled = {
    seconds: prior[kind] * speed * factor,
    basis: "the model's size and the images, scaled by the screening rungs measured",
  };
  if (kind !== 'exclusions') return scaled;
  const step = startsFrom && !startsFrom.error ? reusing(startsFrom) : null;
  if (!step || !(step.seconds > screenSeconds)) return { ...scaled, firstResult: screenSeconds };
  return {
    seconds: (scaled.seconds * step.seconds) / screenSeconds,
    basis: `${scaled.basis}, each step like rung ${step.rung.index} (${formatDuration(step.seconds)}), which it starts from`,
    firstResult: step.seconds,
  };
}
