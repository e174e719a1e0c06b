/**
 * The climb the page's recovery worker and `qstudio ladder` both run, wired once: the user's choices, the model's
 * facts and the measures (ladderMeasure.ts) → climbLadder's options. Each side only turns its inputs (a worker
 * request, command-line flags) into LadderChoices and adds its own signal and progress.
 */
import type { ModelProto } from '../onnx/model.ts';
import type { PrecisionBudget } from '../quantize/precisionBudget.ts';
import { hasAttentionBlocks, hasWrittenOutActivations } from '../quantize/attentionBlocks.ts';
import type { LadderOptions } from './ladder.ts';
import { ladderCostPrior, ladderMeasures, type LadderRuntime } from './ladderMeasure.ts';

/**
 * What the user chose for a climb; a field left out takes the ladder's default. The fields climbLadder takes as they
 * are keep its names and meanings (LadderOptions).
 */
export interface LadderChoices extends Pick<
  LadderOptions,
  'target' | 'base' | 'order' | 'formats' | 'reapplyAlgorithms' | 'perChannelRung' | 'finetuneReach' | 'adaquantStride'
> {
  /** The exclusion search's rungs (default on). */
  readonly exclusions?: boolean;
  /** The mixed-precision rungs (default on). */
  readonly mixedPrecision?: boolean;
  /** After the mixed-precision rung, its precisions with bias correction as a rung of its own (default on). */
  readonly mixedBiasCorrection?: boolean;
  readonly maxExclusionSteps?: number;
  readonly precisionBudget?: PrecisionBudget;
  /** Seconds the climb may take. */
  readonly timeBudget?: number;
  /** Fine-tune only layers whose own weight rounding costs at least this share of their output (default 0: all). */
  readonly minRoundingError?: number;
  /** Stop a fine-tuned layer once its loss improved by less than this share over a window (default 0: off). */
  readonly plateauStop?: number;
  /** Fine-tune only the layers whose added noise sums to this share of all (1 or left out: all). */
  readonly sensitiveShare?: number;
}

/** What the host knows that the choices do not say. */
export interface LadderHost {
  /** How many samples calibrate (and tune) and how many judge, for the cost estimates. */
  readonly calibrationSamples: number;
  readonly evaluationSamples: number;
  /**
   * Whether this machine's int8 kernels can saturate (src/cli/runtime/cpuInt8Kernels.ts); false: no saturation-safe
   * rung. Left out (a browser cannot tell): as the judging runtime's graph optimization says (ladderMeasures).
   */
  readonly kernelsSaturate?: boolean;
  /**
   * Where kernelsSaturate is false, the measured reason (e.g. WASM_INT8_KERNELS_EXACT): a model at risk then lists its
   * saturation-safe rung as skipped with it. Left out: that rung is left out silently.
   */
  readonly kernelsExactBecause?: string;
}

/** climbLadder's options for the choices on the runtime, less the caller's signal, onRung and onSkip. */
export function ladderClimbOptions(
  rt: LadderRuntime,
  choices: LadderChoices,
  host: LadderHost,
): Omit<LadderOptions, 'signal' | 'onRung' | 'onSkip'> {
  const model: ModelProto = rt.model;
  const measures = ladderMeasures(rt, choices.target.metric, {
    maxExclusionSteps: choices.maxExclusionSteps,
    precisionBudget: choices.precisionBudget,
    minRoundingError: choices.minRoundingError,
    plateauStop: choices.plateauStop,
    sensitiveShare: choices.sensitiveShare,
  });
  return {
    target: choices.target,
    base: choices.base,
    order: choices.order,
    formats: choices.formats,
    reapplyAlgorithms: choices.reapplyAlgorithms ?? true,
    perChannelRung: choices.perChannelRung ?? true,
    attentionRungs: hasAttentionBlocks(model),
    functionRungs: hasWrittenOutActivations(model),
    calibrationRungs: true,
    measure: measures.measure,
    cleApplies: measures.cleApplies,
    tunableLayers: measures.tunableLayers,
    // Saturation-safe weights are worth a rung only where the int8 kernels can saturate; elsewhere, with a reason, it is
    // listed as skipped where a model is at risk.
    saturationRisk:
      host.kernelsSaturate === false && host.kernelsExactBecause === undefined ? undefined : measures.saturationRisk,
    saturationSafeSkipped: host.kernelsSaturate === false ? host.kernelsExactBecause : undefined,
    finetuneReach: choices.finetuneReach,
    adaquantStride: choices.adaquantStride,
    exclude: choices.exclusions === false ? undefined : measures.exclude,
    mixed: choices.mixedPrecision === false ? undefined : measures.mixed,
    mixedBiasCorrection: choices.mixedBiasCorrection ?? true,
    timeBudget: choices.timeBudget,
    costPrior: ladderCostPrior(model, {
      calibrationSamples: host.calibrationSamples,
      evaluationSamples: host.evaluationSamples,
      base: choices.base,
      maxExclusionSteps: choices.maxExclusionSteps,
      metric: choices.target.metric,
    }),
  };
}
