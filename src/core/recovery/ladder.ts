/**
 * The best-practice ladder, automated: given a target on the evaluation set, try the configurations the
 * reference's flow for Ryzen AI recommends (AMD Quark's documentation, "Best Practice for Ryzen AI in AMD
 * Quark ONNX") and stop at the first one that meets the target. The product exists to keep models in the NPU's 8-bit
 * formats, so by default (order 'eight-bit-first') every 8-bit route, mixed precision within its budget
 * included, is climbed before any whole-model 16-bit format; order 'fastest' screens every format first and takes
 * the first that meets the target, 16-bit or not (see climbLadder for both orders and why).
 *
 * The flow: start with XINT8; then the accuracy algorithms in order (CLE, then AdaRound, then AdaQuant);
 * then a higher-precision format (A8W8, then A16W8), re-applying the algorithms on each; finally exclude the
 * most sensitive nodes. The same rungs are climbed here, each group's formats before its fine-tuning. Our additions, each reported as rungs of their own: the last format once more with
 * per-channel weights (a Quark `per_channel` option the flow does not name, but the one that recovers most on
 * depthwise detectors; the algorithms re-applied on it as on any format), "keep what helped" (an
 * algorithm rung keeps CLE on only when CLE alone measured better than the plain format), and automatic mixed
 * precision from the best 8-bit configuration, fine-tuned with AdaRound on the search's winner. For models with attention
 * blocks (`attentionRungs`), each format is also tried with the transformer rules (enableNpuTransformer: written-out
 * functions quantized as one op, Softmax on [0, 1]) and with them plus SmoothQuant (include_sq); for other models
 * whose functions are written out as several nodes (`functionRungs`: HardSwish, SiLU, scale-and-shift blocks), with the
 * function rules alone. The fine-tuning and mixed-precision rungs start from whichever of these measured best. The exclusion rung starts from the best configuration measured so far and runs the
 * measured greedy search (core/search/suggest.ts) with the same target.
 * Where the judge runs onnxruntime's CPU int8 kernels (graph optimization 'all', core/runtime/graphOptimization.ts)
 * and a format's best screened model has weights that could saturate them (`saturationRisk`), that rung is measured
 * once more with saturation-safe weights (core/quantize/cpuKernelSafety.ts), and what follows starts from the better.
 *
 * Every rung is measured, never guessed: the injected `measure` calibrates, quantizes, runs the chosen
 * recovery algorithms and evaluates (onnxruntime-node in the command line, workers in the page, fakes in
 * tests). This module decides only what to try next and when to stop; it must not run models.
 */

import type { CalibrationMethod, FinetuneAlgorithm, QuantConfig } from '../quantize/config.ts';
import { getPreset, type PresetName } from '../quantize/presets.ts';
import { withOptions } from '../quantize/config.ts';
import { StudioError } from '../onnx/errors.ts';
import type { ReportLadder } from '../report/report.ts';
import { ladderShortfall } from './ladderShortfall.ts';
import { nextTask } from '../runtime/letMessagesIn.ts';
import {
  estimateRung,
  formatDuration,
  FINETUNE_SHARE_PER_ITERATION,
  type CostPrior,
  type RungEstimate,
} from './ladderBudget.ts';

/** The metric the target is on, measured on the evaluation set (mean over outputs and samples). */
export const OUTPUT_LADDER_METRICS = ['cosine', 'psnr', 'top1', 'sequence', 'decision'] as const;
/** Task figures (core/task/taskTarget.ts): they need the task's head (and labels, for figures against labels). */
export const TASK_LADDER_METRICS = ['map50', 'map', 'miou'] as const;
export const LADDER_METRICS = [...OUTPUT_LADDER_METRICS, ...TASK_LADDER_METRICS] as const;
export type LadderMetric = (typeof LADDER_METRICS)[number];

export interface LadderTarget {
  readonly metric: LadderMetric;
  /**
   * Reached when the measured value is at least this (cosine in (−1, 1], PSNR in dB, top-1 and sequence in
   * [0, 1]; sequence: the share of sequences whose greedy CTC decoding is the float model's; decision: the share of
   * samples whose decision at 0.5 on a single-probability output (voice activity, wake word) is the float model's;
   * map50, map (mAP@0.5:0.95)
   * and miou: task figures in [0, 1] (core/task/taskTarget.ts), against labels when the runtime has them).
   */
  readonly value: number;
}

/** A bad target ("cosine:2", "ssim:0.9"): named so the page and the command line can say what is wrong. */
export class LadderTargetError extends StudioError {
  override readonly name = 'LadderTargetError';
}

/** "cosine:0.99", "psnr:30", "top1:0.95", "sequence:0.9", "decision:0.95", "map50:0.95", "map:0.6", "miou:0.9", or a bare number (a cosine). */
/** A target of each metric, as the messages suggest it. */
const TARGET_EXAMPLE: Readonly<Record<LadderMetric, number>> = {
  cosine: 0.99,
  psnr: 30,
  top1: 0.99,
  sequence: 0.9,
  decision: 0.95,
  map50: 0.9,
  map: 0.8,
  miou: 0.9,
};

export function parseLadderTarget(text: string): LadderTarget {
  const [a, b] = text.includes(':') ? text.split(':', 2) : ['cosine', text];
  const metric = a.trim().toLowerCase();
  if (!(LADDER_METRICS as readonly string[]).includes(metric)) {
    throw new LadderTargetError(`target metric "${a}": give one of ${LADDER_METRICS.join(', ')}`);
  }
  // A metric without its figure ("cosine") reads as a bare number would: say what is missing.
  if (!text.includes(':') && (LADDER_METRICS as readonly string[]).includes(b.trim().toLowerCase()))
    throw new LadderTargetError(`target "${text}" has no value: give ${b.trim()}:<value>, such as cosine:0.99`);
  const value = Number(b);
  const ok =
    Number.isFinite(value) &&
    (metric === 'psnr' ? true : metric === 'cosine' ? value > -1 && value <= 1 : value >= 0 && value <= 1);
  const range = metric === 'psnr' ? 'a number of dB' : metric === 'cosine' ? 'above −1, at most 1' : 'from 0 to 1';
  if (!ok || b.trim() === '')
    throw new LadderTargetError(
      `target value "${b}" is not a valid ${metric}: give ${range} (${metric}:${TARGET_EXAMPLE[metric as LadderMetric]})`,
    );
  return { metric: metric as LadderMetric, value };
}

/**
 * The output cosine the mixed-precision search aims for on the calibration samples where it cannot aim at the target's
 * own figure (targetMeasure.ts mixedPrecisionAim): a cosine target as it is; any other (PSNR, which has no upper bound;
 * a target against labels, which the calibration samples have none of) a high cosine, so the search spends its budget
 * on what lowers the output error most.
 */
export function mixedPrecisionCosine(target: LadderTarget): number {
  return target.metric === 'cosine' ? target.value : 0.999;
}

/** What a rung changes over the user's configuration. */
export interface RungRecipe {
  readonly preset: PresetName;
  readonly perChannel: boolean;
  readonly cle: boolean;
  readonly finetune: FinetuneAlgorithm | null;
  /** The measured exclusion search, from the best configuration so far. */
  readonly exclusions: boolean;
  /** Automatic mixed precision (core/search/mixedPrecision.ts) from the best 8-bit configuration so far. */
  readonly mixedPrecision?: boolean;
  /** The transformer rules (enableNpuTransformer). Absent: off. */
  readonly transformer?: boolean;
  /** SmoothQuant (includeSq). Absent: off. */
  readonly smoothQuant?: boolean;
  /** Saturation-safe weights (saturationSafeWeights, core/quantize/cpuKernelSafety.ts). Absent: off. */
  readonly saturationSafe?: boolean;
  /** Ranges by this calibration method instead of the user's (or the preset's). Absent: theirs. */
  readonly calibrationMethod?: CalibrationMethod;
  /** Empirical bias correction (includeBiasCorrection), on the mixed-precision rung's precisions. Absent: off. */
  readonly biasCorrection?: boolean;
  /** Fine-tuning iterations per layer fitted to what is left of the time budget, fewer than the user's. Absent: theirs. */
  readonly iterations?: number;
  /**
   * AdaQuant in strides of this many steps (LadderOptions.adaquantStride): 1/stride of the user's iterations at stride ×
   * their learning rate (adaquantStrided). Absent: 1.
   */
  readonly adaquantStride?: number;
}

export interface Rung {
  /** 1, 2, … in the order tried. */
  readonly index: number;
  /** "XINT8 + CLE + AdaRound". */
  readonly label: string;
  /** Where in the reference's flow: its step 1 to 4, or 'ours' for our additions. */
  readonly step: 1 | 2 | 3 | 4 | 'ours';
  readonly recipe: RungRecipe;
  /** Why it comes now: which phase of the climb, and what measurement put it there. */
  readonly why?: string;
  /** Its expected cost before it ran (LadderOptions.costPrior and the rungs measured before it). */
  readonly estimate?: RungEstimate;
  /** The most rungs the climb may measure, this one and those before it included (fewer as rungs are ruled out). */
  readonly of?: number;
}

/** What measuring one configuration found. */
export interface RungMeasurement {
  /** The target metric's value. */
  readonly score: number;
  /** Other numbers worth showing side by side (cosine, PSNR, …), by name. */
  readonly metrics: Readonly<Record<string, number>>;
  /** The configuration actually measured (the exclusion rung adds the nodes it found). */
  readonly config?: QuantConfig;
  /** Free-form detail for reports (the recovery report, the exclusion steps). */
  readonly detail?: unknown;
  /** Of the rung's time, seconds of work later rungs reuse (ladderBudget.ts MeasuredRung.sharedSeconds). */
  readonly sharedSeconds?: number;
  /**
   * Where the deadline or a Cancel stopped the rung part-way and it kept what it had measured (the mixed-precision
   * search's best configuration, ladderMeasure.ts): what it kept and how it was judged. The figure is a real measurement.
   */
  readonly stoppedEarly?: string;
}

export interface RungResult {
  readonly rung: Rung;
  readonly config: QuantConfig;
  /** NaN when the rung failed. */
  readonly score: number;
  readonly metrics: Readonly<Record<string, number>>;
  readonly met: boolean;
  readonly seconds: number;
  /** Of `seconds`, the work later rungs reuse (the float model's layer inputs a fine-tuning rung gathered). */
  readonly sharedSeconds?: number;
  /** Why it failed (`name: message`), when it did; the ladder goes on to the next rung. */
  readonly error?: string;
  /** Stopped part-way by the deadline or a Cancel, and measured on what it kept (RungMeasurement.stoppedEarly). */
  readonly stoppedEarly?: string;
  readonly detail?: unknown;
}

/**
 * Why the climb ended: a rung met the target; every rung was tried; the caller cancelled it (Cancel, SIGINT); the time
 * budget ran out (rungs that could not fit were skipped); or something outside any one rung failed (`error`).
 */
export type LadderStop = 'target' | 'exhausted' | 'cancelled' | 'budget' | 'failed';

/** A rung the ladder did not measure, and why (measurement said it could not win). */
export interface SkippedRung {
  readonly label: string;
  readonly reason: string;
}

/**
 * The order rungs are climbed in (climbLadder): 'eight-bit-first' (default) climbs every 8-bit route, mixed precision
 * included, before any 16-bit format; 'fastest' screens every format first and stops at the first that meets the target.
 */
export const LADDER_ORDERS = ['eight-bit-first', 'fastest'] as const;
export type LadderOrder = (typeof LADDER_ORDERS)[number];
export const DEFAULT_LADDER_ORDER: LadderOrder = 'eight-bit-first';

/** True when `text` names a ladder order. */
export function isLadderOrder(text: string): text is LadderOrder {
  return (LADDER_ORDERS as readonly string[]).includes(text);
}

export interface LadderResult {
  readonly target: LadderTarget;
  /** The order the rungs were climbed in. */
  readonly order: LadderOrder;
  readonly results: readonly RungResult[];
  /** Rungs not measured because earlier measurements said they could not win. */
  readonly skipped: readonly SkippedRung[];
  readonly stopped: LadderStop;
  /** The first rung that met the target, else the best measured one; −1 when none could be measured. */
  readonly chosen: number;
  /** Why the climb failed (stopped 'failed'), `name: message`. */
  readonly error?: string;
  /** The time budget (seconds) it planned against, and the seconds it took; absent without a budget. */
  readonly budget?: { readonly seconds: number; readonly used: number };
}

/** The climb as it stands: the rungs measured and skipped so far, with the best chosen (a cancelled or interrupted climb keeps this). */
export function ladderSoFar(
  target: LadderTarget,
  order: LadderOrder,
  results: readonly RungResult[],
  skipped: readonly SkippedRung[],
  stopped: LadderStop,
  extra: Pick<LadderResult, 'error' | 'budget'> = {},
): LadderResult {
  return {
    target,
    order,
    results: [...results],
    skipped: [...skipped],
    stopped,
    chosen: chooseRung(results),
    ...extra,
  };
}

export interface LadderOptions {
  readonly target: LadderTarget;
  /** The user's configuration: its exclusions, calibration method and options carry into every rung. */
  readonly base?: QuantConfig;
  /** The order rungs are climbed in (see climbLadder). Default 'eight-bit-first'. */
  readonly order?: LadderOrder;
  /** Formats climbed, in order. Default XINT8, A8W8, A16W8 (the reference's). */
  readonly formats?: readonly PresetName[];
  /** Re-apply CLE / AdaRound / AdaQuant after switching format, as the reference says. Default true. */
  readonly reapplyAlgorithms?: boolean;
  /** Climb the last format once more with per-channel weights (ours), algorithms re-applied. Default true. */
  readonly perChannelRung?: boolean;
  /** Try each format with the transformer rules, and with them plus SmoothQuant (core/quantize/attentionBlocks.ts says when). Default false. */
  readonly attentionRungs?: boolean;
  /**
   * Without attention blocks: try each format with the function rules alone (functions written out as several nodes
   * quantized as one op; attentionBlocks.ts hasWrittenOutActivations says when). Default false.
   */
  readonly functionRungs?: boolean;
  /**
   * Screen each float-scale format's best rung once more with ranges by LADDER_CALIBRATION_METHOD, where its own
   * method is another (see climbLadder). Default false.
   */
  readonly calibrationRungs?: boolean;
  /**
   * Whether CLE changes the model under `config` (some pair of layers qualifies); a CLE rung where it does not is
   * the plain rung again and is skipped. Omitted: CLE rungs always run.
   */
  cleApplies?(config: QuantConfig): boolean;
  /**
   * Whether the model has a layer fine-tuning and bias correction work on under a rung's configuration (a Conv, Gemm or
   * MatMul with a constant weight in the main graph, or in an If branch where the configuration enters bodies:
   * src/core/recovery/linearLayers.ts); where it has none, those rungs would be their starting rung again and are
   * skipped. Omitted: they always run.
   */
  tunableLayers?(config: QuantConfig): boolean;
  /** The largest share of a configuration's output error fine-tuning is expected to remove. Default FINETUNE_REACH. */
  readonly finetuneReach?: number;
  /**
   * AdaQuant rungs take 1/k of the iterations at k × the learning rate (adaquantStrided). Default 1: as configured.
   * An option, not a default: measured cheaper on every model, at 9 better held out on the recognizer and YOLOX-nano
   * but worse on the text detector, at 3 worse on YOLOX-nano, at 9 from 1000 iterations worse on the recognizer and
   * YOLOX-nano (bench/README.md ladder-budget).
   */
  readonly adaquantStride?: number;
  /** Calibrate, quantize, recover, evaluate one configuration. May throw: the rung is recorded as failed. */
  measure(config: QuantConfig, rung: Rung): Promise<RungMeasurement>;
  /** The exclusion search from `config`, toward the target; omitted → no exclusion rung. */
  exclude?(config: QuantConfig, target: LadderTarget, rung: Rung): Promise<RungMeasurement>;
  /**
   * Automatic mixed precision from the 8-bit `config`, toward the target, then measured; omitted → no mixed-precision
   * rungs. They come after the 8-bit fine-tuning rungs (see climbLadder).
   */
  mixed?(
    config: QuantConfig,
    target: LadderTarget,
    rung: Rung,
    limits?: { readonly secondsLeft?: number },
  ): Promise<RungMeasurement>;
  /**
   * Whether a measured rung's model has weights that could saturate the int8 kernels its judge runs (the judge at
   * onnxruntime's graph optimization 'all' on an x86 CPU; see core/quantize/cpuKernelSafety.ts). Where it says so,
   * the screened format's best rung is measured again with saturation-safe weights. Omitted: never.
   */
  saturationRisk?(result: RungResult): boolean;
  /**
   * Where the judge's int8 kernels are known not to saturate although saturationRisk flags a model (onnxruntime-web's
   * WASM kernels, core/runtime/wasmInt8Kernels.ts), why: the saturation-safe rung is then listed as skipped with this
   * reason, never measured.
   */
  readonly saturationSafeSkipped?: string;
  /**
   * After the mixed-precision rung, measure its precisions with bias correction (a rung of its own, before fine-tuning
   * them). Default false.
   */
  readonly mixedBiasCorrection?: boolean;
  /** Called before a rung is measured, and after, with its result. */
  onRung?(rung: Rung, result?: RungResult): void;
  /** Called when a rung is ruled out (listed in the result's `skipped`). */
  onSkip?(skipped: SkippedRung): void;
  /**
   * Seconds the climb may take. Before each rung its cost is estimated (`costPrior` and the rungs measured); a rung
   * that cannot finish within what is left is skipped and listed, and the climb then ends 'budget' unless a rung met
   * the target. The first rung always runs (a climb ends with a model). Stopping a rung that overruns is the caller's
   * (set `signal` at the deadline: a climb aborted past its budget ends 'budget', not 'cancelled').
   */
  readonly timeBudget?: number;
  /**
   * Order eight-bit-first: measure every 8-bit format's plain rung first, then screen the variants of the one that
   * measured best, fine-tune it and run mixed precision, and only then screen the other formats' variants (see
   * plainFirst in climbLadder). Default: on under a time budget, where which rungs fit depends on the order; off
   * without one, where every rung is measured anyway and the reference's flow order is kept.
   */
  readonly plainFirst?: boolean;
  /** Seconds per kind of rung before anything is measured (ladderBudget.ts priorCosts). Default: unknown until measured. */
  readonly costPrior?: CostPrior;
  /** Seconds since some origin; default performance.now() / 1000 (tests pass a fake clock). */
  now?(): number;
  /** Checked between rungs; a cancelled ladder keeps what it measured. `budgetSpent`: the abort is the budget's deadline. */
  readonly signal?: { readonly aborted: boolean; readonly budgetSpent?: boolean };
}

const ALGORITHM_LABEL: Record<FinetuneAlgorithm, string> = { adaround: 'AdaRound', adaquant: 'AdaQuant' };

/** What a rung quantizes with before any algorithm: "A8W8 per-channel", then its ranges and rules, in label order. */
function startParts(r: RungRecipe): string[] {
  const parts = [`${r.preset}${r.perChannel ? ' per-channel' : ''}`];
  if (r.calibrationMethod) parts.push(`${r.calibrationMethod} ranges`);
  if (r.transformer) parts.push('attention rules');
  if (r.smoothQuant) parts.push('SmoothQuant');
  if (r.saturationSafe) parts.push('saturation-safe weights');
  return parts;
}

/** "A16W8 per-channel + CLE + AdaQuant". */
export function rungLabel(r: RungRecipe): string {
  if (r.exclusions) return 'Exclude sensitive nodes';
  const finetune = [
    ...(r.biasCorrection ? ['bias correction'] : []),
    ...(r.finetune ? [`${ALGORITHM_LABEL[r.finetune]}${finetuneDetail(r)}`] : []),
  ];
  if (r.mixedPrecision) return [`Mixed precision (${startParts(r).join(' + ')})`, ...finetune].join(' + ');
  return [...startParts(r), ...(r.cle ? ['CLE'] : []), ...finetune].join(' + ');
}

/** " (stride 3, 150 iterations)", " (stride 3)", " (150 iterations)" or "": what a fine-tuning rung's label adds. */
function finetuneDetail(r: RungRecipe): string {
  const stride = r.finetune === 'adaquant' && (r.adaquantStride ?? 1) > 1 ? `stride ${r.adaquantStride}` : '';
  const parts = [stride, r.iterations ? `${r.iterations} iterations` : ''].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** Why fine-tuning and bias-correction rungs are skipped on a model without a layer they work on (tunableLayers). */
const NO_TUNABLE_LAYER =
  'no Conv, Gemm or MatMul with a constant weight in the main graph, nor in an If branch the rung quantizes (fine-tuning and bias correction enter If branches where the configuration enters bodies, EnableSubgraph, and never Loop/Scan bodies): the rung would be its starting rung again';

/** Calibration settings of the user's configuration that carry into a rung, with its method (see rungConfig). */
const CALIBRATION_OPTIONS = [
  'CalibMovingAverage',
  'CalibMovingAverageConstant',
  'Percentile',
  'NumBins',
  'NumQuantizedBins',
  'MinMSEMode',
] as const;

/**
 * The configuration of a rung: the preset's quantization, the user's exclusions, whether the bodies of If/Loop/Scan are
 * quantized (EnableSubgraph: which nodes are quantized, as the exclusions are) and calibration choices. The user's
 * calibration method (with its settings) carries into every format of the same scale type as the user's configuration:
 * a power-of-two method (Quark's PowerOfTwoMethod NonOverflow or MinMSE) is not the float-scale method of the same
 * name, so across scale types each format keeps its own. The recipe's method, where it names one, wins over both.
 */
export function rungConfig(recipe: RungRecipe, base?: QuantConfig): QuantConfig {
  const preset = getPreset(recipe.preset);
  const carries = base !== undefined && base.scaleType === preset.scaleType;
  const method = recipe.calibrationMethod ?? (carries ? base.calibrationMethod : undefined);
  const changesMethod = method !== undefined && method !== preset.calibrationMethod;
  // The preset's symmetry was its own method's default (Percentile's symmetric): the user's with their method,
  // else (undefined) the method's own default.
  const symmetry = changesMethod
    ? {
        CalibTensorRangeSymmetric:
          !recipe.calibrationMethod && base ? base.extraOptions.CalibTensorRangeSymmetric : undefined,
      }
    : {};
  const calibration = carries ? Object.fromEntries(CALIBRATION_OPTIONS.map((k) => [k, base.extraOptions[k]])) : {};
  const user = base
    ? {
        nodesToExclude: base.nodesToExclude,
        opTypesToExclude: base.opTypesToExclude,
        subgraphsToExclude: base.subgraphsToExclude,
      }
    : {};
  const userExtra = base
    ? Object.fromEntries(
        (
          [
            'UseRandomData',
            'EnableSubgraph',
            'CLESteps',
            'CLETotalLayerDiffThreshold',
            'CLEScaleAppendBias',
            'SmoothAlpha',
          ] as const
        ).map((k) => [k, base.extraOptions[k]]),
      )
    : {};
  const finetune = recipe.finetune
    ? {
        OptimAlgorithm: recipe.finetune,
        ...(recipe.iterations ? { NumIterations: recipe.iterations } : {}),
        // Each algorithm's own learning rate unless the user set one for it: the defaults differ by orders.
        ...(!base || base.extraOptions.FastFinetune.OptimAlgorithm !== recipe.finetune
          ? { LearningRate: undefined }
          : {}),
      }
    : {};
  const config = withOptions(preset, {
    ...(changesMethod ? { calibrationMethod: method } : {}),
    ...user,
    enableNpuTransformer: recipe.transformer ?? false,
    includeSq: recipe.smoothQuant ?? false,
    saturationSafeWeights: recipe.saturationSafe ?? false,
    perChannel: recipe.perChannel,
    includeCle: recipe.cle,
    includeFastFt: recipe.finetune !== null,
    ...(recipe.biasCorrection ? { includeBiasCorrection: true } : {}),
    extraOptions: {
      ...symmetry,
      ...calibration,
      ...userExtra,
      FastFinetune: { ...(base?.extraOptions.FastFinetune ?? {}), ...finetune },
    },
  });
  return recipe.finetune === 'adaquant' && recipe.adaquantStride
    ? adaquantStrided(config, recipe.adaquantStride, recipe.iterations)
    : config;
}

/** Whether `k` is an AdaQuant stride (LadderOptions.adaquantStride): a whole number ≥ 1. */
export function isAdaquantStride(k: number): boolean {
  return Number.isInteger(k) && k >= 1;
}

/**
 * `config` with AdaQuant in strides of `stride` steps: ⌈1/stride⌉ of its iterations (or `fitted`, a budget's fewer) at
 * stride × its learning rate, so a layer's weights may travel as far in fewer steps. A stride of 1: `config`.
 */
export function adaquantStrided(config: QuantConfig, stride: number, fitted?: number): QuantConfig {
  if (!(stride > 1)) return config;
  const ft = config.extraOptions.FastFinetune;
  return withOptions(config, {
    extraOptions: {
      FastFinetune: {
        NumIterations: fitted ?? Math.max(1, Math.ceil(ft.NumIterations / stride)),
        // To 12 digits, so 1e-5 × 3 is the 3e-5 a user would type (not 3.0000000000000004e-5).
        LearningRate: Number((ft.LearningRate * stride).toPrecision(12)),
      },
    },
  });
}

/**
 * The share of a configuration's error that fine-tuning must remove for `score` to reach `target`: the error is
 * what separates the metric from perfect (1 − value for cosine, top-1 and sequence agreement; the noise power
 * 10^(−dB/10) for PSNR). 0 or less: already there.
 */
export function requiredReduction(metric: LadderMetric, score: number, target: number): number {
  const error = (v: number) => (metric === 'psnr' ? 10 ** (-v / 10) : 1 - v);
  if (!Number.isFinite(score)) return Infinity;
  const now = error(score);
  return now <= 0 ? 0 : 1 - error(target) / now;
}

/**
 * Default of LadderOptions.finetuneReach: the largest share of a configuration's error that fine-tuning is expected
 * to remove. Measured (bench/README.md, suites ladder and finetune-cost): AdaRound removed 37–74 % of the output
 * error on YOLOX-nano's formats and 42 % on the PP-OCRv4 detector, AdaQuant 21–48 %; 0.9 leaves a wide margin.
 */
export const FINETUNE_REACH = 0.9;

/**
 * The share of a configuration's output error fine-tuning is expected to remove, for ordering by gain per second:
 * AdaRound removed 37–74 % on YOLOX-nano's formats and 42 % on the PP-OCRv4 detector, AdaQuant 21–48 %
 * (bench/README.md, suites ladder and finetune-cost); 0.4 sits at the low end of AdaRound's.
 */
export const FINETUNE_EXPECTED_REDUCTION = 0.4;

/**
 * The share mixed precision within its default budget is expected to remove: YOLOX-nano A8W8 per channel 0.892 → 0.971
 * held out (73 %), the PP-OCRv4 recognizer 0.938 → 0.979 on its search's lines (66 %) (bench/README.md); 0.6 below both.
 */
export const MIXED_EXPECTED_REDUCTION = 0.6;

/**
 * The fewest fine-tuning iterations a layer a rung is fitted to a time budget with (fewer: the rung is skipped). AdaRound
 * at 200 iterations measured the recognizer's best 8-bit text within the default budget (12/16 held out, against 10/16 at
 * 1000; bench/README.md), and YOLOX-nano's ladder reaches its target with 200; 100 leaves room below that.
 */
export const MIN_BUDGET_ITERATIONS = 100;

/**
 * The calibration method the ladder screens float-scale formats with besides the user's (LadderOptions.calibrationRungs):
 * Sequential (core/calibrate/run/sequential.ts) measured at least MinMax's held-out cosine on every benchmarked model, and
 * best on the PP-OCRv4 text detector (per channel 0.9595 against MinMax 0.8989) and on YOLOX-nano per channel
 * (0.8977 against 0.8257), at 1.6–4.8× MinMax's calibration time (bench/README.md, calibration-methods).
 */
export const LADDER_CALIBRATION_METHOD: CalibrationMethod = 'Sequential';

/**
 * The calibration method the ladder screens float-scale formats with on models with attention blocks: MinMSE. On the
 * PP-OCRv4 recognizer (A8W8 per channel with the attention rules, lines 00–15 calibrate, 16–31 held out at 'all' and
 * 'basic') MinMSE ranges read 10 of 16 lines as the float model does (CER 3.90 %) where MinMax read 8 (7.93 %) and
 * Sequential 3 (30.0 %); on the calibration lines step top-1 0.914 MinMSE, 0.902 Percentile, 0.877 MinMax (bench/README.md).
 */
export const ATTENTION_CALIBRATION_METHOD: CalibrationMethod = 'MinMSE';

/**
 * Climbs until a rung meets the target, the rungs run out, or the signal aborts. Within a group of formats the
 * order is by expected gain per second, from what the ladder has measured: screening (every format's rungs without
 * fine-tuning: plain; + CLE where CLE changes the model; the attention rules), each costing a calibration (shared
 * when the settings are) and an evaluation, seconds where a fine-tuning rung costs minutes; then fine-tuning
 * (AdaRound, then AdaQuant) from each format's best screened configuration, closest to the target first (the least
 * share of its error to remove: every fine-tuning rung runs the same layers on the same samples, so costs about the
 * same). A configuration whose error fine-tuning cannot be expected to remove (more than `finetuneReach` of it) is
 * skipped and listed, never measured, except the closest one in the last group that fine-tunes (so that a ladder
 * that cannot reach its target still ends with the best model it can make).
 *
 * Order 'eight-bit-first' (the default: the NPU's speed is in its 8-bit formats, and issue 15 asks for mixed
 * precision before any whole-model 16-bit format):
 *   1. screening of the 8-bit formats;
 *   2. fine-tuning of the 8-bit configurations, closest first;
 *   3. mixed precision from the best 8-bit configuration, then AdaRound on the search's winner (under the same rule,
 *      or tried when it is the best configuration so far);
 *   4. screening of the 16-bit formats (the per-channel stage with them when the last format is 16-bit), then their
 *      fine-tuning;
 *   5. the exclusion search from the best configuration measured.
 * Order 'fastest': screening of every format, 8- and 16-bit, then fine-tuning of them all, then mixed precision, then
 * exclusions: the first format that meets the target is chosen, whatever its bits. On YOLOX-nano to cosine 0.99 it
 * takes A16W8 per-channel + AdaRound in five rungs (bench/README.md, suite ladder).
 *
 * The reference's flow fine-tunes each format before moving to the next; on YOLOX-nano that spent 98 % of a
 * 37-minute ladder in fine-tuning rungs that could not reach the target. Screened first, the cheap rungs say
 * which format fine-tuning can lift far enough.
 *
 * Two screening rungs of ours follow a stage's own, measured only where they can differ: where CLE and the function
 * rules each measured better than the plain format, both together (the PP-OCRv4 detector per tensor: Sequential with
 * rules and CLE is its best 8-bit start); and, with `calibrationRungs`, the stage's best recipe with ranges by
 * LADDER_CALIBRATION_METHOD where the stage calibrates with another method on float scales. Fine-tuning then starts
 * from whichever measured best, so AdaRound runs on the function rules and the better ranges together (the PP-OCRv4
 * detector, A8W8 per channel: Sequential + rules 0.9688, + AdaRound 200 iterations 0.9772 held out).
 */
export async function climbLadder(options: LadderOptions): Promise<LadderResult> {
  const order = options.order ?? DEFAULT_LADDER_ORDER;
  const formats = options.formats ?? ['XINT8', 'A8W8', 'A16W8'];
  const reapply = options.reapplyAlgorithms ?? true;
  const reach = options.finetuneReach ?? FINETUNE_REACH;
  const results: RungResult[] = [];
  const skipped: SkippedRung[] = [];
  const now = options.now ?? (() => performance.now() / 1000);
  const startedAt = now();
  const elapsed = () => now() - startedAt;
  const budget = options.timeBudget;
  /** Rungs skipped because they could not fit in the budget. */
  let overBudget = 0;
  const met = (score: number) => Number.isFinite(score) && score >= options.target.value;
  /** The caller's abort is the budget's deadline (its own word, or the clock past the budget). */
  const deadlinePassed = () =>
    budget !== undefined &&
    options.signal?.aborted === true &&
    (options.signal.budgetSpent === true || elapsed() >= budget);
  const finish = (stopped: LadderStop, error?: string): LadderResult => {
    // A climb whose last rung the deadline cut short ran out of budget too: it did not try everything it would have.
    const ended: LadderStop =
      (stopped === 'exhausted' && (overBudget > 0 || deadlinePassed())) || (stopped === 'cancelled' && deadlinePassed())
        ? 'budget'
        : stopped;
    return ladderSoFar(options.target, order, results, skipped, ended, {
      ...(error ? { error } : {}),
      ...(budget !== undefined ? { budget: { seconds: budget, used: elapsed() } } : {}),
    });
  };
  const skip = (s: SkippedRung) => {
    skipped.push(s);
    options.onSkip?.(s);
  };
  /** A phase's outcome: the climb ends ('target', 'cancelled') or goes on (null). */
  type Ended = 'target' | 'cancelled' | null;
  /** The most rungs the climb may still measure: set below from the options, lowered as rungs are ruled out. */
  let planned = 0;
  const drop = (n = 1) => {
    planned = Math.max(results.length, planned - n);
  };

  /**
   * The expected cost of `recipe` (ladderBudget.ts estimateRung), scaled to the iterations it runs where they are not the
   * user's (fitted to the budget, or AdaQuant's stride).
   */
  const estimateOf = (recipe: RungRecipe): RungEstimate => {
    const k = FINETUNE_SHARE_PER_ITERATION;
    const iterationsOf = (r: RungRecipe) => rungConfig(r, options.base).extraOptions.FastFinetune.NumIterations;
    const userOf = (r: RungRecipe) => iterationsOf({ ...r, iterations: undefined, adaquantStride: undefined });
    // Rungs measured with other iterations count as they would have cost at the user's (the work later rungs reuse
    // does not scale with the iterations).
    const asUser = results.map((r) => {
      const shared = Math.min(r.seconds, r.sharedSeconds ?? 0);
      const ran = iterationsOf(r.rung.recipe);
      const user = userOf(r.rung.recipe);
      return r.rung.recipe.finetune && ran !== user
        ? { ...r, seconds: shared + ((r.seconds - shared) * (1 + k * user)) / (1 + k * ran) }
        : r;
    });
    const e = estimateRung(
      recipe,
      asUser,
      options.costPrior ?? { screen: NaN, finetune: NaN, mixed: NaN, exclusions: NaN },
      // The exclusion search measures the best configuration's way (bestConfig below): its fine-tuning included.
      recipe.exclusions ? results[chooseRung(results)] : undefined,
    );
    const runs = iterationsOf(recipe);
    const user = userOf(recipe);
    if (!recipe.finetune || runs === user) return e;
    return {
      seconds: (e.seconds * (1 + k * runs)) / (1 + k * user),
      basis: `${e.basis}, scaled to ${runs} of ${user} iterations`,
    };
  };

  /** Measures `recipe`; null when the time budget cannot fit it (skipped and listed). */
  const tryRung = async (recipe: RungRecipe, step: Rung['step'], why: string): Promise<RungResult | null> => {
    const label = rungLabel(recipe);
    const estimate = options.costPrior || results.length > 0 ? estimateOf(recipe) : undefined;
    if (budget !== undefined && results.length > 0 && estimate && Number.isFinite(estimate.seconds)) {
      const left = budget - elapsed();
      // A search that keeps its best when the deadline stops it (the exclusion search) needs room for one measurement.
      if ((estimate.firstResult ?? estimate.seconds) > left) {
        overBudget++;
        drop();
        skip({
          label,
          reason: `over the time budget: estimated ${formatDuration(estimate.seconds)} (${estimate.basis})${estimate.firstResult !== undefined ? `, its first measurement ${formatDuration(estimate.firstResult)}` : ''}, ${formatDuration(Math.max(0, left))} of ${formatDuration(budget)} left`,
        });
        return null;
      }
    }
    const rung: Rung = {
      index: results.length + 1,
      label,
      step,
      recipe,
      why,
      ...(estimate && Number.isFinite(estimate.seconds) ? { estimate } : {}),
      of: Math.max(planned, results.length + 1),
    };
    options.onRung?.(rung);
    const start = now();
    let result: RungResult;
    let config = rungConfig(recipe, options.base);
    if (recipe.exclusions) config = bestConfig(results) ?? config;
    // Fine-tuning on mixed precision keeps the precisions the search chose (the last mixed rung's configuration).
    const chosenPrecision = [...results].reverse().find((r) => r.rung.recipe.mixedPrecision && !r.error)?.config;
    if (recipe.mixedPrecision && (recipe.finetune || recipe.biasCorrection) && chosenPrecision) {
      config = {
        ...config,
        nodesToExclude: chosenPrecision.nodesToExclude,
        extraOptions: {
          ...config.extraOptions,
          TensorQuantOverrides: chosenPrecision.extraOptions.TensorQuantOverrides,
        },
      };
    }
    try {
      const m = recipe.exclusions
        ? await options.exclude!(config, options.target, rung)
        : recipe.mixedPrecision && !recipe.finetune && !recipe.biasCorrection
          ? await options.mixed!(
              config,
              options.target,
              rung,
              budget !== undefined ? { secondsLeft: budget - elapsed() } : undefined,
            )
          : await options.measure(config, rung);
      result = {
        rung,
        config: m.config ?? config,
        score: m.score,
        metrics: m.metrics,
        met: met(m.score),
        seconds: now() - start,
        ...(m.sharedSeconds ? { sharedSeconds: m.sharedSeconds } : {}),
        ...(m.stoppedEarly ? { stoppedEarly: m.stoppedEarly } : {}),
        detail: m.detail,
      };
    } catch (e) {
      const err = e as Error;
      result = {
        rung,
        config,
        score: NaN,
        metrics: {},
        met: false,
        seconds: now() - start,
        error: `${err.name}: ${err.message}`,
      };
    }
    results.push(result);
    options.onRung?.(rung, result);
    return result;
  };
  /**
   * The climb ends here: the caller cancelled, or the budget has no time left for any rung. Checked after the thread
   * took its messages (a page's Cancel reaches a worker as one), so no rung starts after a Cancel sent during the last.
   */
  const stopNow = async () => {
    await nextTask();
    return options.signal?.aborted === true;
  };

  /**
   * Fine-tunes `from` with `finetune` unless measurement says it cannot reach the target, or it is `closest` (the
   * best configuration there is to fine-tune: tried whatever it needs, so that a ladder short of its target still
   * ends with the best model it can make); true when it met the target.
   */
  const fineTune = async (
    from: RungResult,
    finetune: FinetuneAlgorithm,
    step: Rung['step'],
    closest: boolean,
    why0: string,
  ): Promise<boolean> => {
    const { adaquantStride: _, ...start } = from.rung.recipe;
    const stride = finetune === 'adaquant' ? (options.adaquantStride ?? 1) : 1;
    const recipe: RungRecipe = { ...start, finetune, ...(stride > 1 ? { adaquantStride: stride } : {}) };
    if (options.tunableLayers?.(rungConfig(recipe, options.base)) === false) {
      drop();
      skip({ label: rungLabel(recipe), reason: NO_TUNABLE_LAYER });
      return false;
    }
    const needed = requiredReduction(options.target.metric, from.score, options.target.value);
    const share = Number.isFinite(needed) ? `${Math.round(needed * 100)} %` : 'all';
    if (needed > reach && !closest) {
      drop();
      skip({
        label: rungLabel(recipe),
        reason: `${share} of the error of ${from.rung.label} (${from.score.toFixed(4)}) would have to go; fine-tuning is expected to remove at most ${Math.round(reach * 100)} %`,
      });
      return false;
    }
    const why =
      needed > reach
        ? `${why0}: ${from.rung.label} (${from.score.toFixed(4)}) is the best configuration there is to fine-tune, so it is tried although ${share} of its error would have to go`
        : `${why0}: ${from.rung.label} (${from.score.toFixed(4)}) needs ${share} of its error removed, within fine-tuning's reach (${Math.round(reach * 100)} %)`;
    const fitted = fitIterations(recipe);
    return (await tryRung(fitted?.recipe ?? recipe, step, fitted ? `${why}; ${fitted.why}` : why))?.met ?? false;
  };

  /**
   * A fine-tuning rung that cannot fit in what is left of the budget at the user's iterations, with fewer that fit (at
   * least MIN_BUDGET_ITERATIONS), where the estimate says so: its cost is taken as a fixed part (a screening rung's worth)
   * plus a part per iteration (ladderBudget.ts priorCosts's shape). Null: it fits as it is, or not even so.
   */
  const fitIterations = (recipe: RungRecipe): { recipe: RungRecipe; why: string } | null => {
    if (budget === undefined || results.length === 0) return null;
    const user = rungConfig(recipe, options.base).extraOptions.FastFinetune.NumIterations;
    const estimate = estimateOf(recipe);
    const left = budget - elapsed();
    if (!(estimate.seconds > left) || !Number.isFinite(estimate.seconds)) return null;
    const k = FINETUNE_SHARE_PER_ITERATION;
    const fits = Math.floor(((left / estimate.seconds) * (1 + k * user) - 1) / k / 50) * 50;
    if (fits < MIN_BUDGET_ITERATIONS || fits >= user) return null;
    return {
      recipe: { ...recipe, iterations: fits },
      why: `at ${user} iterations a layer it would take about ${formatDuration(estimate.seconds)} (${estimate.basis}), ${formatDuration(left)} are left: ${fits} iterations fit`,
    };
  };

  // The formats in order, then (ours) the last one with per-channel weights; `position` numbers them for the flow's steps.
  const stages = formats.map((preset, position) => ({ preset, perChannel: false, position }));
  if (options.perChannelRung ?? true)
    stages.push({ preset: formats[formats.length - 1], perChannel: true, position: stages.length });

  // The most rungs there can be: each stage's screening rungs (plain; CLE; the rules; CLE and rules together; saturation-safe
  // weights; Sequential ranges), two fine-tuning rungs from each stage that fine-tunes, the two mixed-precision rungs, the
  // exclusion search. Lowered as measurement rules rungs out.
  const rules = options.attentionRungs ? 2 : options.functionRungs ? 1 : 0;
  for (const { position } of stages) {
    const algorithms = position === 0 || reapply;
    planned +=
      1 +
      (options.saturationRisk ? 1 : 0) +
      (algorithms ? 1 + rules + (rules > 0 ? 1 : 0) + (options.calibrationRungs ? 1 : 0) + 2 : 0);
  }
  planned += (options.mixed ? (options.mixedBiasCorrection ? 3 : 2) : 0) + (options.exclude ? 1 : 0);

  /** Screens `group`, pushing each stage's best screened rung (CLE kept only if it measured better than the plain format) to `candidates`. */
  /** The plain rung measured for a stage before its variants (plainFirst), by stage. */
  const plainOf = new Map<(typeof stages)[number], RungResult>();
  /** Why a stage's variants come when they do (plainFirst), by stage. */
  const stageWhy = new Map<(typeof stages)[number], string>();

  const screen = async (group: typeof stages, candidates: RungResult[]): Promise<Ended> => {
    for (const stage of group) {
      const { preset, perChannel, position } = stage;
      const algorithms = position === 0 || reapply;
      const plain: RungRecipe = { preset, perChannel, cle: false, finetune: null, exclusions: false };
      const format = `${preset}${perChannel ? ' per-channel' : ''}`;
      const recipes: { recipe: RungRecipe; why: string }[] = [
        {
          recipe: plain,
          why: `screening ${format}: a calibration and an evaluation, seconds where fine-tuning costs minutes`,
        },
      ];
      if (algorithms && (options.cleApplies?.(rungConfig({ ...plain, cle: true }, options.base)) ?? true))
        recipes.push({
          recipe: { ...plain, cle: true },
          why: `screening ${format} with CLE (the reference's first algorithm), before any fine-tuning`,
        });
      else if (algorithms) {
        drop();
        skip({
          label: rungLabel({ ...plain, cle: true }),
          reason: 'CLE finds no pair of layers to equalize in this model: the rung would be the plain one',
        });
      }
      if (algorithms && options.attentionRungs) {
        recipes.push(
          {
            recipe: { ...plain, transformer: true },
            why: `screening ${format} with the attention rules: the model has attention blocks`,
          },
          {
            recipe: { ...plain, transformer: true, smoothQuant: true },
            why: `screening ${format} with the attention rules and SmoothQuant: the model has attention blocks`,
          },
        );
      } else if (algorithms && options.functionRungs)
        recipes.push({
          recipe: { ...plain, transformer: true },
          why: `screening ${format} with the function rules: the model has functions written out as several nodes`,
        });
      const measured: RungResult[] = [];
      for (let i = 0; i < recipes.length; i++) {
        if (await stopNow()) return 'cancelled';
        const given = i === 0 ? plainOf.get(stage) : undefined;
        const note = i > 0 ? stageWhy.get(stage) : undefined;
        const r =
          given ??
          (await tryRung(
            recipes[i].recipe,
            i > 0 ? (recipes[i].recipe.cle ? 2 : 'ours') : perChannel ? 'ours' : position === 0 ? 1 : 3,
            note ? `${recipes[i].why}; ${note}` : recipes[i].why,
          ));
        if (!r) continue;
        measured.push(r);
        if (r.met) return 'target';
      }
      if (measured.length === 0) {
        drop(2 + (algorithms ? 3 : 0));
        continue;
      }
      const best = () => {
        let from = 0;
        measured.forEach((r, i) => {
          if (Number.isFinite(r.score) && !(r.score <= measured[from].score)) from = i;
        });
        return measured[from];
      };
      // Keep what helped, together: CLE and the function rules each measured better than the plain format.
      const helped = (r: RungResult | undefined) => r !== undefined && r.score > measured[0].score;
      const cleAlone = measured.find((r) => r.rung.recipe.cle && !r.rung.recipe.transformer);
      const rulesAlone = measured.find(
        (r) => r.rung.recipe.transformer && !r.rung.recipe.smoothQuant && !r.rung.recipe.cle,
      );
      if (helped(cleAlone) && helped(rulesAlone)) {
        if (await stopNow()) return 'cancelled';
        const r = await tryRung(
          { ...rulesAlone!.rung.recipe, cle: true },
          'ours',
          `CLE (${cleAlone!.score.toFixed(4)}) and the rules (${rulesAlone!.score.toFixed(4)}) each measured better than plain ${format} (${measured[0].score.toFixed(4)}): both together`,
        );
        if (r) measured.push(r);
        if (r?.met) return 'target';
      } else if (rules > 0 && algorithms) drop();
      // Judged where int8 kernels can saturate: the stage's best rung once more with saturation-safe weights, where its model is at risk.
      const risky = best();
      if (options.saturationRisk && !risky.error && options.saturationRisk(risky) && options.saturationSafeSkipped) {
        drop();
        skip({
          label: rungLabel({ ...risky.rung.recipe, saturationSafe: true }),
          reason: options.saturationSafeSkipped,
        });
      } else if (options.saturationRisk && !risky.error && options.saturationRisk(risky)) {
        if (await stopNow()) return 'cancelled';
        const r = await tryRung(
          { ...risky.rung.recipe, saturationSafe: true },
          'ours',
          `${risky.rung.label} has weights that could saturate the judge's int8 kernels: once more with saturation-safe weights`,
        );
        if (r) measured.push(r);
        if (r?.met) return 'target';
      } else if (options.saturationRisk) drop();
      // The best screened recipe with ranges by the method measured best on 8-bit CNNs, where its own is another.
      const screened = best();
      const method = options.attentionRungs ? ATTENTION_CALIBRATION_METHOD : LADDER_CALIBRATION_METHOD;
      if (
        algorithms &&
        options.calibrationRungs &&
        !screened.error &&
        screened.config.scaleType !== 'powerOfTwo' &&
        screened.config.calibrationMethod !== method
      ) {
        if (await stopNow()) return 'cancelled';
        const r = await tryRung(
          { ...screened.rung.recipe, calibrationMethod: method },
          'ours',
          `${screened.rung.label} measured best of ${format}: once more with ${method} ranges, the method measured best ${options.attentionRungs ? 'on the attention recognizer' : 'on 8-bit CNNs'}`,
        );
        if (r) measured.push(r);
        if (r?.met) return 'target';
      } else if (algorithms && options.calibrationRungs) drop();
      if (!algorithms) continue;
      candidates.push(best());
    }
    return null;
  };

  /**
   * Where a group holds several stages, each stage's plain rung first; the stage whose plain rung measured best (by the
   * target, ties by CER and cosine: chooseRung) has its variants screened next, the others' after that stage's fine-tuning
   * and mixed precision (the recognizer: XINT8 and A8W8 per tensor read no line, A8W8 per channel 1 of 16 and 8 with the
   * attention rules; their eight per-tensor variants took about 4 of 15 minutes before). Returns the stages in the order
   * their variants are screened: [the best, the rest] (or how the climb ended).
   */
  const plainFirst = async (group: typeof stages): Promise<[typeof stages | 'target' | 'cancelled', typeof stages]> => {
    if (group.length < 2 || !(options.plainFirst ?? budget !== undefined)) return [group, []];
    const measured: { stage: (typeof stages)[number]; r: RungResult }[] = [];
    for (const stage of group) {
      if (await stopNow()) return ['cancelled', []];
      const format = `${stage.preset}${stage.perChannel ? ' per-channel' : ''}`;
      const r = await tryRung(
        { preset: stage.preset, perChannel: stage.perChannel, cle: false, finetune: null, exclusions: false },
        stage.perChannel ? 'ours' : stage.position === 0 ? 1 : 3,
        `screening ${format}: every 8-bit format's plain rung first (a calibration and an evaluation each), so that measurement says whose variants come first`,
      );
      if (!r) continue;
      plainOf.set(stage, r);
      if (r.met) return ['target', []];
      measured.push({ stage, r });
    }
    // No plain rung measured a figure (every one failed, or read NaN): nothing says which comes first, the flow's order stays.
    const best = measured[chooseRung(measured.map((m) => m.r))];
    if (!best) return [group, []];
    const rest = group.filter((g) => g !== best.stage);
    const show = (r: RungResult) =>
      `${r.score.toFixed(4)}${Number.isFinite(r.metrics.cosine) ? `, cosine ${r.metrics.cosine.toFixed(4)}` : ''}`;
    stageWhy.set(best.stage, `its plain rung measured best of the 8-bit formats (${show(best.r)})`);
    for (const g of rest) {
      const mine = plainOf.get(g);
      if (mine)
        stageWhy.set(
          g,
          `its plain rung measured ${show(mine)}, below ${best.r.rung.label}'s ${show(best.r)}: screened after that format's fine-tuning and mixed precision`,
        );
    }
    return [[best.stage], rest];
  };

  /** Fine-tunes `candidates`, closest to the target first; AdaRound (which measured better everywhere) before AdaQuant. */
  const fineTuneAll = async (candidates: readonly RungResult[], tryClosest: boolean, group: string): Promise<Ended> => {
    const closest = [...candidates].sort((a, b) => scoreOrder(b.score) - scoreOrder(a.score));
    for (const finetune of ['adaround', 'adaquant'] as const) {
      for (const [k, from] of closest.entries()) {
        if (await stopNow()) return 'cancelled';
        const why = `fine-tuning the ${group} configurations after screening them all, closest to the target first (${k + 1} of ${closest.length}), ${finetune === 'adaround' ? 'AdaRound (measured better everywhere) first' : 'AdaQuant after AdaRound'}`;
        if (await fineTune(from, finetune, 2, tryClosest && from === closest[0], why)) return 'target';
      }
    }
    return null;
  };

  /**
   * Whether the mixed-precision search promises more of the error removed per second than fine-tuning the closest
   * screened 8-bit configuration: each one's expected share (MIXED_EXPECTED_REDUCTION, FINETUNE_EXPECTED_REDUCTION)
   * over its estimated seconds (from the rungs measured and the prior). Returns why, or false; false too when either
   * cost is unknown (no prior and nothing of its kind measured: the flow's own order).
   */
  const mixedBeforeFineTuning = (candidates: readonly RungResult[]): string | false => {
    const from = [...candidates].filter((r) => !r.error).sort((a, b) => scoreOrder(b.score) - scoreOrder(a.score))[0];
    if (!from) return false;
    const prior = options.costPrior ?? { screen: NaN, finetune: NaN, mixed: NaN, exclusions: NaN };
    const ft = estimateRung({ ...from.rung.recipe, finetune: 'adaround' }, results, prior);
    const mixedRecipe: RungRecipe = { ...from.rung.recipe, perChannel: true, mixedPrecision: true, finetune: null };
    const mp = estimateRung(mixedRecipe, results, prior);
    if (!(ft.seconds > 0 && mp.seconds > 0)) return false;
    const ftRate = FINETUNE_EXPECTED_REDUCTION / ft.seconds;
    const mpRate = MIXED_EXPECTED_REDUCTION / mp.seconds;
    if (!(mpRate > ftRate)) return false;
    const pct = (x: number) => `${Math.round(x * 100)} %`;
    return `mixed precision before 8-bit fine-tuning: expected to remove ${pct(MIXED_EXPECTED_REDUCTION)} of the error in about ${formatDuration(mp.seconds)} (${mp.basis}), against ${pct(FINETUNE_EXPECTED_REDUCTION)} in about ${formatDuration(ft.seconds)} (${ft.basis}) for fine-tuning ${from.rung.label}`;
  };
  /** Why mixed precision came before fine-tuning, when it did. */
  let mixedReason: string | null = null;

  /** Mixed precision (ours) from the best 8-bit rung, with per-channel weights, then fine-tuned. */
  const mixedPrecision = async (): Promise<Ended> => {
    if (!options.mixed) return null;
    const eight = results.filter((r) => !r.error && isEightBit(r.rung.recipe.preset) && !r.rung.recipe.mixedPrecision);
    const best = eight[chooseRung(eight)];
    if (!best) {
      drop(2);
      return null;
    }
    if (await stopNow()) return 'cancelled';
    // The best 8-bit rung's recipe (its transformer rules and SmoothQuant included), with per-channel weights.
    const recipe: RungRecipe = {
      ...best.rung.recipe,
      perChannel: true,
      cle: false,
      finetune: null,
      exclusions: false,
      mixedPrecision: true,
    };
    // Said from what ran: where the 8-bit fine-tuning was skipped (no layer it reaches, the budget), not "after" it.
    const afterEightBit = results.some((r) => r.rung.recipe.finetune && isEightBit(r.rung.recipe.preset))
      ? 'after 8-bit fine-tuning'
      : 'after the 8-bit screening (no 8-bit fine-tuning rung ran)';
    const searched = await tryRung(
      recipe,
      'ours',
      `mixed precision from the best 8-bit rung, ${best.rung.label} (${best.score.toFixed(4)}): ${mixedReason ?? `${afterEightBit}; the 8-bit routes are tried before any 16-bit format`}`,
    );
    if (!searched) {
      drop();
      return null;
    }
    if (searched.met) return 'target';
    if (await stopNow()) return 'cancelled';
    const bestSoFar = results[chooseRung(results)] === searched;
    if (searched.error) {
      drop(options.mixedBiasCorrection ? 2 : 1);
      return null;
    }
    // Bias correction on the chosen precisions: a fine-tuning rung's layer data without its iterations, so tried first.
    const correctedRecipe: RungRecipe = { ...recipe, biasCorrection: true };
    if (options.mixedBiasCorrection && options.tunableLayers?.(rungConfig(correctedRecipe, options.base)) === false) {
      drop();
      skip({ label: rungLabel(correctedRecipe), reason: NO_TUNABLE_LAYER });
    } else if (options.mixedBiasCorrection) {
      if (await stopNow()) return 'cancelled';
      const corrected = await tryRung(
        correctedRecipe,
        'ours',
        'bias correction on the precisions the mixed-precision search chose: the layer data of a fine-tuning rung without its iterations, so before fine-tuning (measured on the recognizer: 12 → 15 of 16 lines at act16=0.25)',
      );
      if (corrected?.met) return 'target';
      if (await stopNow()) return 'cancelled';
    }
    if (
      await fineTune(
        searched,
        best.rung.recipe.finetune ?? 'adaround',
        'ours',
        bestSoFar,
        'fine-tuning the precisions the mixed-precision search chose',
      )
    )
      return 'target';
    return null;
  };

  try {
    let ended: Ended = null;
    if (order === 'fastest') {
      const candidates: RungResult[] = [];
      ended =
        (await screen(stages, candidates)) ??
        (await fineTuneAll(candidates, true, 'screened')) ??
        (await mixedPrecision());
    } else {
      const eightBit = stages.filter((s) => isEightBit(s.preset));
      const sixteenBit = stages.filter((s) => !isEightBit(s.preset));
      const eight: RungResult[] = [];
      const sixteen: RungResult[] = [];
      // The closest 8-bit configuration is fine-tuned whatever it needs only when nothing else can lift the ladder after it.
      const eightLast = sixteenBit.length === 0 && !options.mixed;
      // Measured sensitivity orders the 8-bit stages: each one's plain rung first (a calibration and an evaluation), then the
      // variants of the stage that measured best, its fine-tuning and mixed precision, and only then the other stages'.
      const [first, later] = await plainFirst(eightBit);
      if (first === 'cancelled' || first === 'target') return finish(first);
      ended = await screen(first, eight);
      // After screening, 8-bit fine-tuning and mixed precision in the order of their expected gain per second.
      const mixedFirst = ended === null && options.mixed !== undefined && mixedBeforeFineTuning(eight);
      if (mixedFirst) mixedReason = mixedFirst;
      ended ??= mixedFirst
        ? ((await mixedPrecision()) ?? (await fineTuneAll(eight, eightLast && later.length === 0, '8-bit')))
        : ((await fineTuneAll(eight, eightLast && later.length === 0, '8-bit')) ?? (await mixedPrecision()));
      const eightLater: RungResult[] = [];
      ended ??=
        (await screen(later, eightLater)) ?? (await fineTuneAll(eightLater, eightLast, '8-bit (screened later)'));
      ended ??= (await screen(sixteenBit, sixteen)) ?? (await fineTuneAll(sixteen, true, '16-bit'));
    }
    if (ended) return finish(ended);

    // The exclusion search, last in either order.
    if (options.exclude) {
      if (await stopNow()) return finish('cancelled');
      const r = await tryRung(
        { preset: formats[formats.length - 1], perChannel: false, cle: false, finetune: null, exclusions: true },
        4,
        'the exclusion search comes last: every format and algorithm was tried first, and it starts from the best configuration measured',
      );
      if (r?.met) return finish('target');
    }
    return finish('exhausted');
  } catch (e) {
    // Each rung's own failure is recorded in its result; this is a failure between rungs. What was measured stays.
    const err = e as Error;
    return finish('failed', `${err?.name ?? 'Error'}: ${err?.message ?? String(e)}`);
  }
}

/** A score to sort by (higher is closer to the target); a failed rung last. */
const scoreOrder = (score: number) => (Number.isFinite(score) ? score : -Infinity);

/** True when the preset's activations and weights are both 8-bit (or narrower). */
function isEightBit(preset: PresetName): boolean {
  const c = getPreset(preset);
  return !c.activationType.endsWith('16') && !c.weightType.endsWith('16');
}

/**
 * The first rung that met the target; else the best measured; −1 when none was measured. Equal scores are
 * common with a coarse target (sequence: lines decoded alike, in steps of 1/16 on 16 lines): such a tie goes to
 * the rung whose character error rate is lower, else whose cosine is higher, else the earlier.
 */
export function chooseRung(results: readonly RungResult[]): number {
  const first = results.findIndex((r) => r.met);
  if (first >= 0) return first;
  let best = -1;
  results.forEach((r, i) => {
    if (
      Number.isFinite(r.score) &&
      (best < 0 || r.score > results[best].score || (r.score === results[best].score && winsTie(r, results[best])))
    )
      best = i;
  });
  return best;
}

/**
 * Every measured rung's index, best first as chooseRung picks (those that met the target in order, then by score, ties
 * by CER and cosine); failed rungs left out. The CLI writes the next one where onnxruntime refuses the chosen's model.
 */
export function rankRungs(results: readonly RungResult[]): number[] {
  const left = results.map((r, i) => ({ r, i }));
  const order: number[] = [];
  for (;;) {
    const k = chooseRung(left.map(({ r }) => r));
    if (k < 0) return order;
    order.push(left[k].i);
    left.splice(k, 1);
  }
}

/** Whether `a` beats `b` at an equal score: a lower CER where both have one, else a higher cosine. */
function winsTie(a: RungResult, b: RungResult): boolean {
  const [ca, cb] = [a.metrics?.cer, b.metrics?.cer];
  if (Number.isFinite(ca) && Number.isFinite(cb) && ca !== cb) return ca! < cb!;
  const [ka, kb] = [a.metrics?.cosine, b.metrics?.cosine];
  return Number.isFinite(ka) && Number.isFinite(kb) && ka! > kb!;
}

function bestConfig(results: readonly RungResult[]): QuantConfig | null {
  const i = chooseRung(results);
  return i >= 0 ? results[i].config : null;
}

/**
 * The ladder as the report shows it: every rung tried, its numbers, and which was chosen; where no rung met the
 * target, which tensors block it and why, from the climb's own measurements (ladderShortfall.ts).
 */
export function ladderReport(result: LadderResult): ReportLadder {
  const shortfall = ladderShortfall(result.target, result.results, result.skipped);
  return {
    target: result.target,
    order: result.order,
    stopped: result.stopped,
    ...(result.error ? { error: result.error } : {}),
    ...(result.budget ? { budget: result.budget } : {}),
    skipped: result.skipped,
    chosen: result.chosen,
    rungs: result.results.map((r) => ({
      index: r.rung.index,
      label: r.rung.label,
      step: r.rung.step,
      score: r.score,
      metrics: r.metrics,
      met: r.met,
      seconds: r.seconds,
      error: r.error ?? null,
      ...(r.stoppedEarly ? { stoppedEarly: r.stoppedEarly } : {}),
      excluded: r.config.nodesToExclude.length + r.config.subgraphsToExclude.length + r.config.opTypesToExclude.length,
      ...(r.rung.why ? { why: r.rung.why } : {}),
      ...(r.rung.estimate ? { estimate: { seconds: r.rung.estimate.seconds, basis: r.rung.estimate.basis } } : {}),
    })),
    ...(shortfall ? { shortfall } : {}),
  };
}
