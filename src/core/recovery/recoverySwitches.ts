/**
 * The recovery switches the page's Recover screen and `qstudio quantize`'s flags both set on a configuration (CLE,
 * attention blocks, SmoothQuant and its α, bias correction, AdaRound/AdaQuant with iterations and learning rate):
 * one rule for both, each side only turning its inputs into RecoverySwitches.
 */
import { withOptions, type FinetuneAlgorithm, type QuantConfig } from '../quantize/config.ts';

/** What to set; a field left out keeps the configuration's value. */
export interface RecoverySwitches {
  /** includeCle. */
  readonly cle?: boolean;
  /** enableNpuTransformer: attention blocks quantized as the NPU runs them. */
  readonly attention?: boolean;
  /** includeSq. */
  readonly smoothQuant?: boolean;
  /** SmoothAlpha, SmoothQuant's migration strength in [0, 1]. */
  readonly smoothAlpha?: number;
  /** CLESteps. */
  readonly cleSteps?: number;
  /** includeBiasCorrection. */
  readonly biasCorrection?: boolean;
  /** includeFastFt. */
  readonly finetune?: boolean;
  /** FastFinetune OptimAlgorithm. */
  readonly algorithm?: FinetuneAlgorithm;
  /** FastFinetune NumIterations. */
  readonly iterations?: number;
  /**
   * FastFinetune LearningRate; null: the algorithm's own default. Left out, the configuration's rate stays unless the
   * algorithm changes (the defaults of AdaRound and AdaQuant differ by four orders).
   */
  readonly learningRate?: number | null;
}

/** The configuration with the switches set, validated again (a bad value is a ConfigError naming its field). */
export function withRecoverySwitches(config: QuantConfig, s: RecoverySwitches): QuantConfig {
  const ft = config.extraOptions.FastFinetune;
  const newAlgorithm = s.algorithm !== undefined && s.algorithm !== ft.OptimAlgorithm;
  const learningRate =
    s.learningRate === null || (s.learningRate === undefined && newAlgorithm)
      ? { LearningRate: undefined }
      : s.learningRate === undefined
        ? {}
        : { LearningRate: s.learningRate };
  return withOptions(config, {
    ...defined({
      includeCle: s.cle,
      enableNpuTransformer: s.attention,
      includeSq: s.smoothQuant,
      includeBiasCorrection: s.biasCorrection,
      includeFastFt: s.finetune,
    }),
    extraOptions: {
      ...defined({ SmoothAlpha: s.smoothAlpha, CLESteps: s.cleSteps }),
      FastFinetune: { ...defined({ OptimAlgorithm: s.algorithm, NumIterations: s.iterations }), ...learningRate },
    },
  });
}

/** The fields of `o` that are given (an undefined one would reset its field to the default in withOptions). */
function defined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The configuration with every step that changes the model before or after quantization switched off (CLE, SmoothQuant,
 * fine-tuning, bias correction): what the mixed-precision search quantizes, the model as loaded with its own ranges.
 */
export function withoutRecoverySteps(config: QuantConfig): QuantConfig {
  return { ...config, includeCle: false, includeSq: false, includeFastFt: false, includeBiasCorrection: false };
}
