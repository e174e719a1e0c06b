/**
 * The quantization settings the page offers (a preset, per-channel weights, random calibration data, and the
 * per-tensor 16-bit types a mixed-precision search chose, as TensorQuantOverrides)
 * turned into the core's QuantConfig, and the part of a config that calibration depends on: ranges
 * collected for one activation method are wrong for another, so the page compares these keys to know
 * when a calibration is stale. Pure; no React, no workers.
 */
import { configToJSON, validateConfig, type QuantConfig, type TensorQuantOverrides } from '../../core/quantize/config.ts';
import { getPreset, type PresetName } from '../../core/quantize/presets.ts';
import { BF16_PRESET } from '../../core/precision/bf16Preset.ts';

export interface QuantSettings {
  /** The integer preset (calibration, the exclusion search and the ladder use it, BF16 or not). */
  preset: PresetName;
  perChannel: boolean;
  /** Calibrate on random inputs when no data is given (Quark's UseRandomData). */
  useRandomData: boolean;
  /** Tensors quantized to another type than the preset's (mixed precision); {} for none. */
  tensorOverrides: TensorQuantOverrides;
  /**
   * The BF16 preset instead (Quark BF16 with BF16QDQToCast, core/precision/bf16Preset.ts): the model written
   * is the with-cast BF16 model, which needs no ranges; absent means false (settings saved before it).
   */
  bf16?: boolean;
}

/** What the page's preset list offers: the integer presets and BF16. */
export type StudioPreset = PresetName | typeof BF16_PRESET;

/** The preset the page shows as chosen. */
export const shownPreset = (settings: QuantSettings): StudioPreset => (settings.bf16 ? BF16_PRESET : settings.preset);

/** The preset's own settings (VINT8 turns random data on, the others leave it off). */
export function presetSettings(preset: PresetName): QuantSettings {
  const config = getPreset(preset);
  return { preset, perChannel: config.perChannel, useRandomData: config.extraOptions.UseRandomData, tensorOverrides: {} };
}

/** The full configuration for the settings. */
export function configOf(settings: QuantSettings): QuantConfig {
  const json = JSON.parse(configToJSON(getPreset(settings.preset)));
  json.perChannel = settings.perChannel;
  json.extraOptions.UseRandomData = settings.useRandomData;
  // Sessions saved before mixed precision have no overrides.
  json.extraOptions.TensorQuantOverrides = settings.tensorOverrides ?? {};
  return validateConfig(json);
}

/** What calibration results depend on: the activation collector and its options. */
export function calibrationKey(config: QuantConfig): string {
  const x = config.extraOptions;
  return JSON.stringify([
    config.calibrationMethod,
    config.scaleType,
    config.activationType,
    x.ActivationSymmetric,
    x.CalibTensorRangeSymmetric,
    x.CalibMovingAverage,
    x.Percentile,
    x.NumBins,
    x.NumQuantizedBins,
    x.MinMSEMode,
  ]);
}
