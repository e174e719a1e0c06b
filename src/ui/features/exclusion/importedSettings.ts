/**
 * Which of the page's settings (a preset, its calibration method, per-channel weights, random data, mixed precision's per-tensor types) an imported configuration
 * is. The page offers presets only, so a file is matched against each one (the preset the file names
 * first); a configuration that matches none is not forced onto the nearest — the caller says so.
 * The recovery steps a file switches on (transformer rules, SmoothQuant and its α, CLE, bias correction, fast
 * fine-tuning: what a model adopted from the recovery card was made with) are the recovery card's switches,
 * not settings: they are read apart (recoveryStepsOf) and left out of the match.
 * Pure: no React, no store.
 */
import { configToJSON, defaultFinetuneLearningRate, type QuantConfig } from '../../../core/quantize/config.ts';
import { choosesMethodByDefault, getPreset, isPresetName, PRESET_NAMES } from '../../../core/quantize/presets.ts';
import { configOf, methodsFor, type QuantSettings } from '../../store/quantSettings.ts';
import type { RecoveryOptions } from '../../store/recoverySlice.ts';

/** The config without its exclusions and without the recovery card's steps, as comparable text. */
function withoutExclusions(config: QuantConfig): string {
  const ft = config.extraOptions.FastFinetune;
  const { OptimAlgorithm: _a, NumIterations: _n, LearningRate: _r, ...fastFinetune } = ft;
  return configToJSON({
    ...config,
    nodesToExclude: [],
    opTypesToExclude: [],
    subgraphsToExclude: [],
    fp16SubgraphsToFp32: [],
    includeCle: false,
    enableNpuTransformer: false,
    includeSq: false,
    includeBiasCorrection: false,
    includeFastFt: false,
    extraOptions: { ...config.extraOptions, FastFinetune: fastFinetune as typeof ft, SmoothAlpha: 0 },
  });
}

/** The recovery card's switches a configuration turns on: its transformer rules, SmoothQuant, CLE, bias correction and fast fine-tuning. */
export function recoveryStepsOf(config: QuantConfig): Partial<RecoveryOptions> {
  const ft = config.extraOptions.FastFinetune;
  const steps: Partial<RecoveryOptions> = {
    attention: config.enableNpuTransformer,
    smoothQuant: config.includeSq,
    cle: config.includeCle,
    biasCorrection: config.includeBiasCorrection,
    ...(config.includeSq ? { smoothAlpha: config.extraOptions.SmoothAlpha } : {}),
  };
  // The algorithm's own default rate is the card's "default" (null).
  const learningRate = ft.LearningRate === defaultFinetuneLearningRate(ft.OptimAlgorithm) ? null : ft.LearningRate;
  return config.includeFastFt
    ? { ...steps, finetune: ft.OptimAlgorithm, iterations: ft.NumIterations, learningRate }
    : steps;
}

/** The page settings that give exactly `config` (exclusions aside), or null when no preset does. */
export function settingsForConfig(config: QuantConfig, presetHint?: string | null): QuantSettings | null {
  const wanted = withoutExclusions(config);
  const order = isPresetName(presetHint) ? [presetHint, ...PRESET_NAMES.filter((p) => p !== presetHint)] : PRESET_NAMES;
  for (const preset of order) {
    const x = config.extraOptions;
    const fp16 =
      x.QuantizeFP16 || x.UseFP32Scale || x.ConvertFP16ToFP32
        ? { fp16: { quantizeFp16: x.QuantizeFP16, useFp32Scale: x.UseFP32Scale, convertAll: x.ConvertFP16ToFP32 } }
        : {};
    // A method other than the preset's is the page's method choice on top of that preset; a file that names a method
    // for a preset whose default is the held-in choice (A8W8) keeps that method.
    if (!methodsFor(preset).includes(config.calibrationMethod)) continue;
    const method =
      config.calibrationMethod !== getPreset(preset).calibrationMethod || choosesMethodByDefault(preset)
        ? { calibrationMethod: config.calibrationMethod }
        : {};
    const safe = config.saturationSafeWeights ? { saturationSafeWeights: true } : {};
    const bodies = config.extraOptions.EnableSubgraph ? { enableSubgraph: true } : {};
    const settings: QuantSettings = {
      preset,
      perChannel: config.perChannel,
      useRandomData: config.extraOptions.UseRandomData,
      tensorOverrides: config.extraOptions.TensorQuantOverrides,
      ...fp16,
      ...method,
      ...safe,
      ...bodies,
    };
    if (withoutExclusions(configOf(settings)) === wanted) return settings;
  }
  return null;
}
