/**
 * The quantization settings the page offers (a preset, per-channel weights, random calibration data, and the
 * per-tensor 16-bit types a mixed-precision search chose, as TensorQuantOverrides)
 * turned into the core's QuantConfig, and the part of a config that calibration depends on: ranges
 * collected for one activation method are wrong for another, so the page compares these keys to know
 * when a calibration is stale. Pure; no React, no workers.
 */
import {
  CALIBRATION_METHODS,
  withOptions,
  type CalibrationMethod,
  type QuantConfig,
  type TensorQuantOverrides,
} from '../../core/quantize/config.ts';
import { choosesMethodByDefault, getPreset, presetWithMethod, type PresetName } from '../../core/quantize/presets.ts';
import { CHOICE_METHODS, HELD_IN_METHOD } from '../../core/evaluate/calibrationMethodChoice.ts';
import { BF16_PRESET } from '../../core/quantize/bf16Preset.ts';

export interface QuantSettings {
  /** The integer preset (calibration, the exclusion search and the ladder use it, BF16 or not). */
  preset: PresetName;
  perChannel: boolean;
  /** Calibrate on random inputs when no data is given (Quark's UseRandomData). */
  useRandomData: boolean;
  /** Tensors quantized to another type than the preset's (mixed precision); {} for none. */
  tensorOverrides: TensorQuantOverrides;
  /**
   * The BF16 preset instead (Quark BF16 with BF16QDQToCast, core/quantize/bf16Preset.ts): the model written
   * is the with-cast BF16 model, which needs no ranges; absent means false (settings saved before it).
   */
  bf16?: boolean;
  /** Float16 source models (the guide's FP16 workflow); absent: the core's defaults (QuantizeFP16 as if set). */
  fp16?: Fp16Options;
  /**
   * The activation calibration method instead of the preset's default, or 'held-in': chosen per model on the
   * calibration samples (core/evaluate/calibrationMethodChoice.ts). Absent: the preset's default, which is the held-in
   * choice for A8W8 (core/quantize/presets.ts HELD_IN_DEFAULT) and the preset's own method for the others.
   */
  calibrationMethod?: CalibrationMethod | typeof HELD_IN_METHOD;
  /**
   * 7-bit codes only in the weight channels onnxruntime's x86 CPU int8 kernels could saturate on
   * (config.saturationSafeWeights); absent means off, as in every preset.
   */
  saturationSafeWeights?: boolean;
  /** Calibrate and quantize the compute inside If/Loop/Scan bodies too (EnableSubgraph); absent means off, as in every preset. */
  enableSubgraph?: boolean;
}

/** The methods a preset's scale type takes (power-of-two scales: MinMax or MinMSE, as Quark's PowerOfTwoMethod). */
export function methodsFor(preset: PresetName): readonly CalibrationMethod[] {
  return getPreset(preset).scaleType === 'powerOfTwo' ? ['MinMax', 'MinMSE'] : CALIBRATION_METHODS;
}

/** The FP16 options of Quark's extra_options the page offers for a float16 model. */
export interface Fp16Options {
  /** QuantizeFP16: Q/DQ on the float16 tensors, float parts kept float16 (default on). */
  quantizeFp16: boolean;
  /** UseFP32Scale: float32 Q/DQ scales with Casts around them (default off). */
  useFp32Scale: boolean;
  /** ConvertFP16ToFP32: the whole model to float32 first (the "all" choice of convert_fp16_to_fp32; default off). */
  convertAll: boolean;
}

export const DEFAULT_FP16_OPTIONS: Fp16Options = { quantizeFp16: true, useFp32Scale: false, convertAll: false };

/** What the page's preset list offers: the integer presets and BF16. */
export type StudioPreset = PresetName | typeof BF16_PRESET;

/** The preset the page shows as chosen. */
export const shownPreset = (settings: QuantSettings): StudioPreset => (settings.bf16 ? BF16_PRESET : settings.preset);

/** The preset's own settings (VINT8 turns random data on, the others leave it off). */
export function presetSettings(preset: PresetName): QuantSettings {
  const config = getPreset(preset);
  return {
    preset,
    perChannel: config.perChannel,
    useRandomData: config.extraOptions.UseRandomData,
    tensorOverrides: {},
  };
}

/** Whether the settings choose the calibration method on the calibration samples (asked for, or the preset's default). */
export function choosesMethod(settings: QuantSettings): boolean {
  return (
    settings.calibrationMethod === HELD_IN_METHOD ||
    (settings.calibrationMethod === undefined && choosesMethodByDefault(settings.preset))
  );
}

/**
 * The full configuration for the settings. Where the method is chosen on the calibration samples, `chosen` is the
 * method a calibration chose (absent: the preset's own, the one a choice starts from).
 */
export function configOf(settings: QuantSettings, chosen?: CalibrationMethod): QuantConfig {
  const fp16 = settings.fp16;
  const method = choosesMethod(settings) ? chosen : (settings.calibrationMethod as CalibrationMethod | undefined);
  return withOptions(presetWithMethod(settings.preset, method), {
    perChannel: settings.perChannel,
    ...(settings.saturationSafeWeights ? { saturationSafeWeights: true } : {}),
    extraOptions: {
      UseRandomData: settings.useRandomData,
      ...(settings.enableSubgraph ? { EnableSubgraph: true } : {}),
      ...(fp16
        ? {
            QuantizeFP16: fp16.quantizeFp16 && !fp16.convertAll,
            UseFP32Scale: fp16.useFp32Scale,
            ConvertFP16ToFP32: fp16.convertAll,
          }
        : {}),
      // Sessions saved before mixed precision have no overrides.
      TensorQuantOverrides: settings.tensorOverrides ?? {},
    },
  });
}

/**
 * The configuration of each other method the held-in choice tries (the settings with that method), by method: what
 * the calibration worker measures beside configOf(settings).
 */
export function methodCandidates(settings: QuantSettings): Partial<Record<CalibrationMethod, QuantConfig>> {
  const own = getPreset(settings.preset).calibrationMethod;
  const takes = methodsFor(settings.preset);
  return Object.fromEntries(
    CHOICE_METHODS.filter((m) => m !== own && takes.includes(m)).map((m) => [
      m,
      configOf({ ...settings, calibrationMethod: m }),
    ]),
  );
}

/**
 * What calibration results depend on: the activation collector and its options, and whether the method was chosen on
 * the samples (then `config` is the one the choice starts from).
 */
export function calibrationKey(config: QuantConfig, choosing = false): string {
  const x = config.extraOptions;
  return JSON.stringify([
    choosing ? HELD_IN_METHOD : config.calibrationMethod,
    config.scaleType,
    config.activationType,
    x.ActivationSymmetric,
    x.CalibTensorRangeSymmetric,
    x.CalibMovingAverage,
    x.Percentile,
    x.NumBins,
    x.NumQuantizedBins,
    x.MinMSEMode,
    // Bodies' tensors are calibrated only with EnableSubgraph (runner.ts planFor).
    x.EnableSubgraph,
  ]);
}
