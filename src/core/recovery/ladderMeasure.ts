/**
 * How a rung of the ladder is measured, shared by the command line and the page's worker: calibrate
 * (once per activation-calibration setting and CLE choice, since the ranges depend on nothing else),
 * quantize with the rung's recovery steps (quantizeWithRecovery: CLE, AdaRound, AdaQuant, bias correction,
 * tuned on the calibration samples), then compare with the float model on the evaluation samples and read
 * the target's metric. The exclusion rung runs the measured greedy search (core/search/suggest.ts) on the
 * same footing. A mixed-precision rung that the time budget's deadline or a Cancel stops part-way keeps the best
 * configuration it measured, judged once on the evaluation samples, instead of failing as cancelled. Runtimes and
 * calibration are injected; must not import a runtime or read files.
 */
import { buildGraphIndex } from '../onnx/graphIndex.ts';
import type { ModelProto, ValueInfoProto } from '../onnx/model.ts';
import type { QuantConfig } from '../quantize/config.ts';
import { activationMethodName } from '../calibrate/collectors/methodFromConfig.ts';
import { withoutRecoverySteps } from './recoverySwitches.ts';
import type { Ranges } from '../quantize/plan.ts';
import { quantizedNodeIds, type QuantizeReport } from '../quantize/quantizeReport.ts';
import { compareModels, type Comparison, type ComparisonRuntime } from '../evaluate/compareModels.ts';
import { floatPartsAsBf16 } from '../halfFloat/bfloat16.ts';
import { meanOutputCosine, UNREAD_BY_FIGURES } from '../evaluate/outputMetrics.ts';
import { rankLayers, tailSubgraph } from '../search/candidates.ts';
import { suggestExclusions, type SuggestStep } from '../search/suggest.ts';
import { chooseMixedPrecision, withUnits, type MixedPrecisionResult } from '../search/mixedPrecision.ts';
import { growPrecision, sensitivityRanking, type GrowthResult, type GrowthStep } from '../search/precisionGrowth.ts';
import type { GridMeasurement, PrecisionCeiling, WeightCeiling } from './ladderShortfall.ts';
import { withCoarserGrids, type CoarserGrids } from '../quantize/coarserGrids.ts';
import { quantizeModel } from '../quantize/quantizeModel.ts';
import { DEFAULT_PRECISION_BUDGET, type PrecisionBudget } from '../quantize/precisionBudget.ts';
import {
  prepareNamed,
  quantizeWithRecovery,
  type RecoveryProgress,
  type RecoveryReport,
} from './quantizeWithRecovery.ts';
import { crossLayerEqualize } from './cle.ts';
import { FloatRowCache } from './floatRowCache.ts';
import { SensitivityCache } from './sensitiveLayers.ts';
import { TunedLayerMemo } from './tunedLayerMemo.ts';
import { hasLinearLayer } from './linearLayers.ts';
import { memoizedRuntime } from './memoizedRuntime.ts';
import {
  figureReader,
  ladderMetrics,
  ladderScore,
  mixedPrecisionAim,
  runCollector,
  type FigureReader,
  type TaskFiguresOf,
} from './targetMeasure.ts';

export { ladderMetrics, ladderScore };
import type { CancelSignal } from './layerData.ts';
import type { GramProductFactory } from './layerProblem.ts';
import type { DenseProduct } from './denseProduct.ts';
import { forEachTensor } from '../onnx/walk.ts';
import { elementCount } from '../onnx/elementTypes.ts';
import { ladderPrior, LADDER_EXCLUSION_STEPS, LADDER_MIXED_MEASUREMENTS, type CostPrior } from './ladderBudget.ts';
import {
  LadderTargetError,
  mixedPrecisionCosine,
  TASK_LADDER_METRICS as TASK_METRICS,
  type LadderMetric,
  type LadderOptions,
  type Rung,
  type RungMeasurement,
} from './ladder.ts';

export interface LadderRuntime {
  /** The float model as the user gave it; every rung is compared with it. */
  readonly model: ModelProto;
  /** Activation ranges of `model` (the float model, equalized when the config has CLE) on the calibration data. */
  calibrate(model: ModelProto, config: QuantConfig): Promise<Ranges>;
  /** The calibration samples, for bias correction and fine-tuning. */
  readonly tuning: ComparisonRuntime;
  /**
   * The held-out samples every rung is judged on. Its graph optimization (compareModels.ts) is the figure the ladder
   * aims at; at 'all' (onnxruntime's CPU int8 kernels) a format whose model could saturate them is also measured with
   * saturation-safe weights.
   */
  readonly evaluation: ComparisonRuntime;
  /**
   * The calibration samples as `evaluation` runs models, for the mixed-precision search's measurements; default
   * `tuning`. Fine-tuning and bias correction always read `tuning` (the model's own Q/DQ arithmetic, which they model).
   */
  readonly sensitivity?: ComparisonRuntime;
  /** `budgetSpent`: the abort is the time budget's deadline (budgetDeadline.ts), not a Cancel. */
  readonly signal?: CancelSignal & { readonly budgetSpent?: boolean };
  /**
   * Judge every rung with its float parts (exclusions, ops left float) in BF16, as the Ryzen AI compiler runs
   * them on the NPU (halfFloat/bfloat16.ts); the written model is unchanged. Default: as written (float32).
   */
  readonly floatPartsAsBf16?: boolean;
  /** The fine-tuning optimizers' inner product on a runtime's MatMul (see layerProblem.ts); TypeScript without it. */
  readonly gramProduct?: GramProductFactory;
  /** Building each layer's problem and scoring codes on a runtime's float64 MatMul (see denseProduct.ts); TypeScript without it. */
  readonly denseProduct?: DenseProduct;
  onProgress?(rung: Rung, progress: RecoveryProgress | { phase: 'evaluate' } | LadderSearchProgress): void;
  /** Each size the mixed-precision rung's growth measured on the held-in samples (precisionGrowth.ts). */
  onGrowth?(rung: Rung, step: GrowthStep): void;
  /**
   * Task figures of a rung from each evaluation sample's outputs (core/task/taskTarget.ts: mAP, mIoU, accuracy
   * against labels), for task targets; the caller knows the head, the images' geometry and the labels.
   */
  readonly task?: TaskFiguresOf;
  /**
   * The same task figures on the held-in samples (`sensitivity`, else `tuning`: the images' own geometry), as agreement
   * with the float model: with it the mixed-precision rung's search and growth aim at a task target (map50, map,
   * miou) on them. Without it (a target against labels, which the held-in images have none of) they aim at a cosine.
   */
  readonly heldInTask?: TaskFiguresOf;
  /**
   * Most bytes of the float model's layer inputs kept for every fine-tuning rung (FloatRowCache): room for all of them
   * means only the first fine-tuning rung runs the float model for layer data. Default 256 MiB (a page's worker).
   */
  readonly floatRowBudgetBytes?: number;
  /**
   * Most bytes of tuned layers' outcomes kept for every fine-tuning rung and exclusion step (TunedLayerMemo); 0 keeps
   * none (every rung tunes every layer again). Default 256 MiB.
   */
  readonly tunedLayerBudgetBytes?: number;
}

/** The mixed-precision search's measurement `done` of at most `total`, and the cosine it measured. */
export interface LadderSearchProgress {
  readonly phase: 'mixed';
  readonly done: number;
  readonly total: number;
  readonly cosine: number;
}

/** What measuring a rung keeps, for the report and for downloading the chosen model. */
export interface RungDetail {
  readonly quantized: ModelProto;
  readonly report: QuantizeReport;
  readonly recovery: RecoveryReport;
  readonly comparison: Comparison;
  /** The exclusion search's steps, on the exclusion rung. */
  readonly steps?: readonly SuggestStep[];
  /** What the mixed-precision search measured and chose, on the mixed-precision rung. */
  readonly mixedPrecision?: MixedPrecisionResult;
  /** How the mixed-precision rung grew the search's 16-bit set to the held-in target (precisionGrowth.ts). */
  readonly growth?: GrowthResult;
  /** Where the growth missed: every activation at 16 bits measured, for the report's shortfall (ladderShortfall.ts). */
  readonly ceiling?: PrecisionCeiling;
  /** Beside it: every weight at 16 bits with every activation at 8 (ladderShortfall.ts). */
  readonly weightCeiling?: WeightCeiling;
  /** And the activations or the weights on coarser grids, everything else at 16 bits: how many bits the target needs. */
  readonly grids?: readonly GridMeasurement[];
}

/** The activation collectors whose statistics do not depend on the activation type (no search on a quantized grid). */
const TYPE_FREE_COLLECTORS = new Set(['MinMax', 'NonOverflow', 'Percentile', 'Entropy']);

/**
 * Rungs with the same key share one calibration. Activation calibration depends on the collector (the method and
 * the scale type choose it), its options, and the model calibrated: the user's, or the copy CLE or SmoothQuant
 * transformed (calibratedModel in quantizeWithRecovery.ts), whose preparation folds per-channel affines or not; the
 * activation type only for the collectors that search a quantized grid (MinMSE, ConsumerMSE, LayerwisePercentile,
 * power-of-two MinMSE). So A8W8 and A16W8 (both MinMax) share theirs. Weights' settings, fine-tuning and the plan's
 * type alignment never change it.
 */
export function calibrationKey(config: QuantConfig): string {
  // Fine-tuning and the elementwise type alignment act after calibration (the quantization plan), not on it.
  const { FastFinetune: _ft, AlignEltwiseQuantType: _align, ...extra } = config.extraOptions;
  const collector = activationMethodName(config);
  // Sequential gathers its statistics on the model quantized with this configuration, weights included; not on the
  // recovered one (fine-tuning and bias correction run after calibration), so a fine-tuning rung shares its start's.
  if (collector === 'Sequential') {
    const { includeFastFt: _f, includeBiasCorrection: _b, ...top } = config;
    return JSON.stringify([collector, { ...top, extraOptions: extra }]);
  }
  return JSON.stringify([
    collector,
    TYPE_FREE_COLLECTORS.has(collector) ? null : config.activationType,
    config.includeCle,
    config.includeSq,
    config.includeCle || config.includeSq ? config.foldConvAffine : null,
    extra,
  ]);
}

/**
 * Refuses, before any rung is calibrated, a target no output of the model has a figure for: each rung would fail (or
 * read NaN) the same way, one calibration at a time. A sequence target needs an output that can be [batch, steps,
 * classes] (refused when every output's rank is declared and none is 3); an output target (cosine, PSNR, top-1) needs an
 * output of more than one number a sample: one that is a single number ([1, 1], [batch, 1]: a voice-activity
 * probability, a wake-word score) is judged by decision agreement and absolute error instead (evaluate/outputMetrics.ts),
 * which a decision target aims at: it needs such an output.
 */
export function assertTargetFits(model: ModelProto, metric: LadderMetric): void {
  const outputs = model.graph!.output;
  const singleValue = (o: ValueInfoProto) =>
    o.type?.tensor_type?.shape?.dim?.every((d, i) => d.dim_value === 1 || (i === 0 && !d.dim_value)) ?? false;
  if (
    (metric === 'cosine' || metric === 'psnr' || metric === 'top1') &&
    outputs.length > 0 &&
    outputs.every(singleValue)
  ) {
    const shapes = outputs.map(
      (o) =>
        `'${o.name}' [${(o.type?.tensor_type?.shape?.dim ?? []).map((d) => d.dim_param || d.dim_value).join(', ')}]`,
    );
    throw new LadderTargetError(
      `a ${metric} target needs an output of more than one number a sample; this model's ${shapes.join(', ')} ${outputs.length === 1 ? 'is one number' : 'are one number each'} a sample (a score or probability), judged by decision agreement and absolute error: aim at decision:<share> (decisions alike at 0.5, e.g. decision:0.95)`,
    );
  }
  if (metric === 'decision' && outputs.length > 0 && !outputs.some(singleValue))
    throw new LadderTargetError(
      `decision agreement needs an output of one probability a sample ([batch, 1]: a voice-activity or wake-word score); this model's outputs are ${outputs.map((o) => `'${o.name}'`).join(', ')}: aim at cosine, psnr or top1`,
    );
  if (metric !== 'sequence') return;
  const ranks = model.graph!.output.map((o) => o.type?.tensor_type?.shape?.dim?.length);
  if (ranks.length > 0 && ranks.every((r) => r !== undefined && r !== 3)) {
    throw new LadderTargetError(
      `sequence agreement needs a sequence output (scores of shape [batch, steps, classes]); this model's outputs have rank ${ranks.join(', ')}`,
    );
  }
}

/** The `measure`, `exclude`, `mixed` and `cleApplies` functions of climbLadder, for one model and its data (its target checked first: assertTargetFits). */
export function ladderMeasures(
  rt: LadderRuntime,
  metric: LadderMetric,
  options: {
    maxExclusionSteps?: number;
    /** The mixed-precision search's budget: where its choice misses the held-in target, growth goes past it (`grow`). */
    precisionBudget?: PrecisionBudget;
    /** Grow the mixed-precision rung's 16-bit set until the held-in target is met (precisionGrowth.ts). Default true. */
    grow?: boolean;
    /** Fine-tuning rungs tune only the layers whose own weight rounding costs at least this share of their output. */
    minRoundingError?: number;
    /** Fine-tuning rungs stop a layer once its loss improved by less than this share over a window (0: off). */
    plateauStop?: number;
    /**
     * Fine-tuning rungs tune only the layers whose added noise sums to this share of all (1 or left out: every layer;
     * sensitiveLayers.ts sensitiveShareRule).
     */
    sensitiveShare?: number;
  } = {},
): Pick<LadderOptions, 'measure' | 'exclude' | 'mixed' | 'cleApplies' | 'tunableLayers' | 'saturationRisk'> {
  assertTargetFits(rt.model, metric);
  const reader = figureReader(metric, rt.task);
  const ranges = new Map<string, Promise<Ranges>>();
  const floatIndex = buildGraphIndex(rt.model.graph!);
  /** Ranges of `model` (the float model, or its equalized copy when the config has CLE), once per calibration setting. */
  const rangesFor = (model: ModelProto, config: QuantConfig) => {
    const key = calibrationKey(config);
    let r = ranges.get(key);
    if (!r) {
      r = rt.calibrate(model, config);
      ranges.set(key, r);
      r.catch(() => ranges.delete(key));
    }
    return r;
  };
  // The float model's layer inputs, shared by every fine-tuning rung (they do not depend on the format).
  const floatRows = new FloatRowCache(rt.floatRowBudgetBytes);
  // The layers' added noise, measured once per plain configuration (its AdaRound and AdaQuant rungs share it).
  const sensitivity = new SensitivityCache();
  // What each layer's fine-tuning and bias correction gave, by what it depends on: a rung or an exclusion step whose
  // change leaves a layer's inputs alone takes its outcome instead of tuning it again (the same bytes).
  const tunedLayers = rt.tunedLayerBudgetBytes === 0 ? undefined : new TunedLayerMemo(rt.tunedLayerBudgetBytes);
  // The model as the recovery steps see it, prepared once: what CLE pairs and tunable layers are looked for in.
  const prepared = prepareNamed(rt.model).model;
  // CLE that finds no pair to equalize leaves the model as it is: such a rung is the rung without CLE, measured once.
  const cleSettings = new Map<string, boolean>();
  const cleChanges = (config: QuantConfig): boolean => {
    const x = config.extraOptions;
    const key = JSON.stringify([x.CLESteps, x.CLETotalLayerDiffThreshold, x.CLEScaleAppendBias, x.EnableSubgraph]);
    let changes = cleSettings.get(key);
    if (changes === undefined) {
      const report = crossLayerEqualize(prepared, {
        steps: x.CLESteps,
        totalDiffThreshold: x.CLETotalLayerDiffThreshold,
        scaleAppendBias: x.CLEScaleAppendBias,
        bodies: x.EnableSubgraph,
      }).report;
      changes = report.pairs.length > 0;
      cleSettings.set(key, changes);
    }
    return changes;
  };
  const measured = new Map<string, Promise<Awaited<ReturnType<typeof judgeOnce>>>>();
  // The float model's outputs on the evaluation samples, run once for all rungs.
  const evaluation = memoizedRuntime(rt.evaluation);
  // The same on the held-in samples, judged as the evaluation is: the mixed-precision rung's growth measures on them.
  const heldIn = memoizedRuntime(rt.sensitivity ?? rt.tuning);

  /**
   * `fixed`: ranges to quantize with instead of calibrating, and no cancel (a rung the deadline or a Cancel stopped is
   * judged on what it measured, once: see the mixed-precision rung below).
   */
  const quantize = async (config: QuantConfig, rung: Rung, fixed?: Ranges) => {
    const result = await quantizeWithRecovery(rt.model, config, {
      calibrate: (m) => (fixed ? Promise.resolve(fixed) : rangesFor(m, config)),
      runtime: rt.tuning,
      signal: fixed ? undefined : rt.signal,
      gramProduct: rt.gramProduct,
      denseProduct: rt.denseProduct,
      onProgress: (p) => rt.onProgress?.(rung, p),
      configName: rung.label,
      floatRowCache: floatRows,
      minRoundingError: options.minRoundingError,
      plateauStop: options.plateauStop,
      sensitiveShare: options.sensitiveShare,
      sensitivityCache: sensitivity,
      tunedLayerMemo: tunedLayers,
    });
    return result;
  };

  /** A rung's measurement; the same effective configuration (CLE that changes nothing dropped) is measured once. */
  const judge = (config: QuantConfig, rung: Rung, layers: boolean) => {
    const effective = config.includeCle && !cleChanges(config) ? { ...config, includeCle: false } : config;
    if (layers) return judgeOnce(effective, rung, layers); // the exclusion search keeps its own (large) measurements
    const key = JSON.stringify(effective);
    let m = measured.get(key);
    if (!m) {
      m = judgeOnce(effective, rung, layers);
      measured.set(key, m);
      m.catch(() => measured.delete(key));
    }
    return m;
  };

  const judgeOnce = async (config: QuantConfig, rung: Rung, layers: boolean, fixed?: Ranges) => {
    const result = await quantize(config, rung, fixed);
    rt.onProgress?.(rung, { phase: 'evaluate' });
    // A sequence target reads every rank-3 output as a sequence, logits included (auto needs probabilities).
    const judged = rt.floatPartsAsBf16 ? floatPartsAsBf16(result.model).model : result.model;
    const runs = runCollector();
    const comparison = await compareModels(rt.model, judged, evaluation, {
      layers,
      floatIndex,
      sequence: metric === 'sequence' ? 'always' : 'auto',
      onOutputs: reader.readsOutputs ? runs.onOutputs : undefined,
    });
    const detail: RungDetail = {
      quantized: result.model,
      report: result.report,
      recovery: result.recovery,
      comparison,
    };
    return {
      detail,
      score: reader.figure(comparison.outputs, runs.runs),
      metrics: reader.figures(comparison.outputs, runs.runs),
      // Float layer inputs gathered and all kept: later fine-tuning rungs on this float model take them as they are.
      sharedSeconds: floatRows.refused === 0 ? result.recovery.seconds.gatherFloat : 0,
    };
  };

  // Fine-tuning and bias correction work on the main graph's layers, and on If branches' where the rung enters bodies
  // (linearLayers.ts): none there, nothing to tune.
  const tunableInMain = hasLinearLayer(prepared);
  const tunableWithBodies = tunableInMain || hasLinearLayer(prepared, { bodies: true });
  const tunableLayers = (config: QuantConfig) =>
    config.extraOptions.EnableSubgraph ? tunableWithBodies : tunableInMain;

  return {
    cleApplies: cleChanges,
    tunableLayers,
    saturationRisk:
      rt.evaluation.graphOptimization === 'all'
        ? (r) => ((r.detail as RungDetail | undefined)?.report.saturationRisk?.length ?? 0) > 0
        : undefined,

    async measure(config, rung): Promise<RungMeasurement> {
      const { detail, score, metrics, sharedSeconds } = await judge(config, rung, false);
      return { score, metrics, detail, sharedSeconds };
    },

    async mixed(config, target, rung, limits): Promise<RungMeasurement> {
      const started = performance.now() / 1000;
      // The search quantizes the model as loaded, neither equalized nor smoothed: its ranges are those of that model,
      // calibrated (and shared) under that model's key, never under the key of a rung that smooths.
      const plain = withoutRecoverySteps(config);
      const ranges = await rangesFor(rt.model, plain);
      const spent = () => performance.now() / 1000 - started;
      const left = limits?.secondsLeft ?? Infinity;
      // Under a time budget the search ends at its share of what is left, with what it measured so far (its ranking is
      // what the growth reads); the growth then ends at its own, leaving the rest to the rungs that tune the choice.
      const searchSignal = {
        get aborted() {
          return rt.signal?.aborted === true || spent() > SEARCH_SHARE_OF_TIME_LEFT * left;
        },
      };
      // A task target is aimed at through the held-in task reading, where there is one: the search and its growth
      // measure the task figure, not a cosine standing in for it.
      const taskTarget = (TASK_METRICS as readonly string[]).includes(target.metric);
      const heldInReader = taskTarget && rt.heldInTask ? figureReader(target.metric, rt.heldInTask) : null;
      // An output target (top1, sequence: agreement with the float model) is aimed at by its own figure on the held-in
      // samples too, unless it is against labels (a task reading without a held-in one), which they have none of.
      const againstLabels = rt.task !== undefined && rt.heldInTask === undefined;
      const aim =
        heldInReader || (!taskTarget && !againstLabels)
          ? mixedPrecisionAim(target, heldInReader ? rt.heldInTask : null)
          : { target: mixedPrecisionCosine(target) };
      const chosen = await chooseMixedPrecision(rt.model, ranges, config, rt.sensitivity ?? rt.tuning, {
        budget: options.precisionBudget ?? DEFAULT_PRECISION_BUDGET,
        ...aim,
        maxMeasurements: LADDER_MIXED_MEASUREMENTS,
        signal: searchSignal,
        onStep: (s) =>
          rt.onProgress?.(rung, { phase: 'mixed', done: s.index, total: LADDER_MIXED_MEASUREMENTS, cosine: s.cosine }),
      });
      // The budget sized from measurement: the 16-bit set grows along the search's sensitivity ranking until the target
      // holds on the held-in (calibration) samples; a task target through their own task reading (heldInTask).
      let growth: GrowthResult | undefined;
      let ceiling: PrecisionCeiling | undefined;
      let weightCeiling: WeightCeiling | undefined;
      const grids: GridMeasurement[] = [];
      /**
       * `c` quantized with the search's ranges (no recovery). The same configuration measured again (held in, then held
       * out, then on each coarser grid) reuses its quantization: quantizeModel is pure.
       */
      let last: { config: QuantConfig; model: ModelProto } | undefined;
      const quantizedWith = (c: QuantConfig): ModelProto => {
        if (last?.config !== c) last = { config: c, model: quantizeModel(rt.model, ranges, c).model };
        return last.model;
      };
      /**
       * The target's figure of `c` quantized with the search's ranges (no recovery), on held-in or held-out samples; a
       * task target through `task`, the samples' own task reading.
       */
      const scoreOn = async (
        on: ComparisonRuntime,
        c: QuantConfig,
        task: FigureReader | null,
        grids?: CoarserGrids,
      ) => {
        const q = quantizedWith(c);
        const runs = runCollector();
        const comparison = await compareModels(rt.model, grids ? withCoarserGrids(q, grids) : q, on, {
          ...UNREAD_BY_FIGURES,
          floatIndex,
          sequence: metric === 'sequence' ? 'always' : 'auto',
          ...(task ? { onOutputs: runs.onOutputs } : {}),
        });
        return task
          ? { score: task.figure(comparison.outputs, runs.runs), metrics: task.figures(comparison.outputs, runs.runs) }
          : { score: ladderScore(comparison.outputs, metric), metrics: ladderMetrics(comparison.outputs) };
      };
      const heldOutReader = reader.readsOutputs ? reader : null;
      if ((!taskTarget || heldInReader) && options.grow !== false && !rt.signal?.aborted) {
        const searched = chosen.chosen;
        const first = [...chosen.units.act16, ...chosen.units.w16].filter((u) =>
          u.names.some((n) => (u.kind === 'act16' ? searched.act16 : searched.w16).includes(n)),
        );
        const ranking = sensitivityRanking(
          [...chosen.units.act16, ...chosen.units.w16],
          chosen.measured,
          first,
          (u) => chosen.positions.get(u) ?? Infinity,
        );
        const growthBase = { ...chosen.config, includeCle: false, includeFastFt: false, includeBiasCorrection: false };
        growth = await growPrecision({
          config: growthBase,
          ranking,
          start: first.length || Math.ceil((MAX_GROWN_SHARE * ranking.length) / 8),
          limit: Math.floor(MAX_GROWN_SHARE * ranking.length),
          score: (c) => scoreOn(heldIn, c, heldInReader),
          met: (v) => Number.isFinite(v) && v >= target.value,
          stop: () => rt.signal?.aborted === true || spent() > GROWTH_SHARE_OF_TIME_LEFT * left,
          onStep: (s) => rt.onGrowth?.(rung, s),
        });
        // Where growth missed, one more measurement for the report: every activation group at 16 bits (with the
        // weights of the largest set measured), held in and held out, says whether the target needs more than 8-bit
        // activations at all. Seconds: a quantization and two judged runs.
        if (!growth.met && !rt.signal?.aborted && spent() < CEILING_SHARE_OF_TIME_LEFT * left) {
          const largest = growth.steps.reduce((a, b) => (b.units > a.units ? b : a));
          const units = [
            ...ranking.filter((u) => u.kind === 'act16'),
            ...ranking.slice(0, largest.units).filter((u) => u.kind === 'w16'),
          ];
          const wide = withUnits(growthBase, units);
          const act16 = units.filter((u) => u.kind === 'act16').reduce((a, u) => a + u.cost, 0);
          ceiling = {
            act16,
            w16: units.length - units.filter((u) => u.kind === 'act16').length,
            heldIn: await scoreOn(heldIn, wide, heldInReader),
            heldOut: await scoreOn(evaluation, wide, heldOutReader),
          };
          // And the other half of the question: every weight at 16 bits with every activation at 8 (the rung's 8-bit
          // start, none of the search's choice), so the report says whether the weights' rounding or the activations'
          // carries the error. Seconds: a quantization and two judged runs.
          const weights = ranking.filter((u) => u.kind === 'w16');
          if (weights.length > 0 && !rt.signal?.aborted) {
            const wideWeights = withUnits(plain, weights);
            weightCeiling = {
              w16: weights.length,
              heldIn: await scoreOn(heldIn, wideWeights, heldInReader),
              heldOut: await scoreOn(evaluation, wideWeights, heldOutReader),
            };
          }
          // How many bits the target needs: everything at 16 bits, then the activations (or the weights) stepped as
          // coarser grids (core/quantize/coarserGrids.ts), while the time lasts. Seconds each: a quantization and two
          // judged runs.
          const everything = withUnits(growthBase, ranking);
          for (const g of SHORTFALL_GRIDS) {
            if (rt.signal?.aborted || spent() >= CEILING_SHARE_OF_TIME_LEFT * left) break;
            const coarser = { activations: g.activationBits, weights: g.weightBits };
            grids.push({
              ...g,
              heldIn: await scoreOn(heldIn, everything, heldInReader, coarser),
              heldOut: await scoreOn(evaluation, everything, heldOutReader, coarser),
            });
          }
        }
      }
      const { includeCle, includeFastFt, includeBiasCorrection } = chosen.config;
      const final = growth ? { ...growth.config, includeCle, includeFastFt, includeBiasCorrection } : chosen.config;
      // Stopped (the deadline or a Cancel) part-way, in the search, the growth or the final judgement: the best
      // configuration measured (the growth's, else the search's best within the budget) is kept as the rung's model,
      // judged once on the held-out samples as it was measured (the search's ranges, no recovery), instead of thrown
      // away by the cancel. Where nothing but the 8-bit start measured better, nothing is kept: the rung ends cancelled.
      // What the rung's report carries besides the judged model's detail: the search, its growth and the ceilings.
      const withSearchDetail = <D extends object>(detail: D) => ({
        ...detail,
        mixedPrecision: chosen,
        ...(growth ? { growth } : {}),
        ...(ceiling ? { ceiling } : {}),
        ...(weightCeiling ? { weightCeiling } : {}),
        ...(grids.length > 0 ? { grids } : {}),
      });
      const keepsWhatItMeasured = () =>
        rt.signal?.aborted === true && (growth !== undefined || chosen.bestMeasured.units > 0);
      const stoppedEarly = async (): Promise<RungMeasurement> => {
        const judged = withoutRecoverySteps(growth ? growth.config : chosen.bestMeasured.config);
        const { detail, score, metrics } = await judgeOnce(judged, rung, false, ranges);
        return {
          score,
          metrics,
          config: judged,
          stoppedEarly: stoppedEarlyNote(rt.signal?.budgetSpent === true, chosen, growth),
          detail: withSearchDetail(detail),
        };
      };
      if (keepsWhatItMeasured()) return stoppedEarly();
      let judgedFinal: Awaited<ReturnType<typeof judge>>;
      try {
        judgedFinal = await judge(final, rung, false);
      } catch (e) {
        if (keepsWhatItMeasured()) return stoppedEarly();
        throw e;
      }
      const { detail, score, metrics } = judgedFinal;
      return {
        score,
        metrics,
        config: final,
        detail: withSearchDetail(detail),
      };
    },

    async exclude(config, target, rung): Promise<RungMeasurement> {
      const measured = new Map<QuantConfig, Awaited<ReturnType<typeof judge>>>();
      const result = await suggestExclusions({
        config,
        target: target.value,
        maxSteps: options.maxExclusionSteps ?? LADDER_EXCLUSION_STEPS,
        tailOf: (id) => tailSubgraph(floatIndex, id),
        evaluate: async (c) => {
          const m = await judge(c, rung, true);
          measured.set(c, m);
          const quantizedIds = quantizedNodeIds(m.detail.report);
          const layers = rankLayers(m.detail.comparison.layerwise!.rows, floatIndex, quantizedIds);
          return metric === 'cosine'
            ? { cosine: m.score, layers }
            : { cosine: meanOutputCosine(m.detail.comparison.outputs).cosine, figure: m.score, layers };
        },
      });
      const best = measured.get(result.config)!;
      return {
        score: best.score,
        metrics: best.metrics,
        config: result.config,
        detail: { ...best.detail, steps: result.steps },
      };
    },
  };
}

/** "cosine 0.99971" (or the figure the search aimed at) of the search's best configuration measured, on its samples. */
function mixedPrecisionCosineText(r: MixedPrecisionResult): string {
  return `${r.metric ?? 'cosine'} ${r.bestMeasured.cosine.toFixed(5)} on the search's samples`;
}

/** What a mixed-precision rung stopped part-way kept, for its report line (RungMeasurement.stoppedEarly). */
function stoppedEarlyNote(
  budgetSpent: boolean,
  chosen: MixedPrecisionResult,
  growth: GrowthResult | undefined,
): string {
  const by = budgetSpent ? 'the time budget ran out' : 'cancelled';
  const kept = growth
    ? `the growth's best 16-bit set (${growth.chosen.units} units, best of ${growth.steps.length} sizes measured held in)`
    : `the search's best configuration measured (${chosen.bestMeasured.units} units out of 8 bits, ${mixedPrecisionCosineText(chosen)}) after ${chosen.steps.length} of ${LADDER_MIXED_MEASUREMENTS} measurements`;
  return `${by} during it: kept ${kept}, judged with the search's ranges, without re-calibration or recovery steps`;
}

/**
 * The most of a model's 16-bit candidates (activation groups and weights) the mixed-precision rung's growth may take:
 * past half, the model is more 16-bit than 8-bit, which the whole-model 16-bit formats are for.
 */
export const MAX_GROWN_SHARE = 0.5;

/**
 * Under a time budget, the shares of what is left at the mixed-precision rung's start that its search, and the search
 * with its growth, may spend: the rest is for bias correction and fine-tuning on the chosen precisions (the recognizer's
 * search at onnxruntime's 'all' took over 12 minutes at load 20 for its 100 measurements).
 */
const SEARCH_SHARE_OF_TIME_LEFT = 0.35;
const GROWTH_SHARE_OF_TIME_LEFT = 0.6;
/** The ceiling measurement (every activation at 16 bits) is made where the search and growth left this share. */
const CEILING_SHARE_OF_TIME_LEFT = 0.65;

/**
 * The coarser grids the shortfall measures, everything else at 16 bits: the activations at 12 and 10 bits (on the
 * PP-OCRv4 recognizer 12 met its target held out and 10 did not, bench/README "How many bits"), the weights at 10.
 */
const SHORTFALL_GRIDS: readonly { activationBits: number; weightBits: number }[] = [
  { activationBits: 12, weightBits: 16 },
  { activationBits: 10, weightBits: 16 },
  { activationBits: 16, weightBits: 10 },
];

/**
 * What each kind of rung is expected to cost on `model` before any is measured (ladderBudget.ts priorCosts): from its
 * weights, the calibration and evaluation samples, the fine-tuning iterations of `base` and the searches' limits.
 */
export function ladderCostPrior(
  model: ModelProto,
  f: {
    calibrationSamples: number;
    evaluationSamples: number;
    base?: QuantConfig;
    maxExclusionSteps?: number;
    /** The target's metric: a decision target's mixed-precision rung judges 16 samples (defaultSensitivitySamples). */
    metric?: string;
  },
): CostPrior {
  let parameters = 0;
  forEachTensor(model, (t) => {
    parameters += elementCount((t.dims ?? []).map(Number));
  });
  return ladderPrior(parameters, {
    calibrationSamples: f.calibrationSamples,
    evaluationSamples: f.evaluationSamples,
    iterations: f.base?.extraOptions.FastFinetune.NumIterations ?? 1000,
    exclusionSteps: f.maxExclusionSteps,
    metric: f.metric,
  });
}
