/**
 * Which of the page's settings (a preset, its calibration method, per-channel weights, random data, mixed precision's per-tensor types) an imported configuration
 * is. The page offers presets only, so a file is matched against each one (the preset the file names
 * first); a configuration that matches none is not forced onto the nearest — the caller says so.
 * Pure: no React, no store.
 */
import { configToJSON, type QuantConfig } from '../../../core/quantize/config.ts';
import { getPreset, isPresetName, PRESET_NAMES } from '../../../core/quantize/presets.ts';
import { configOf, methodsFor, type QuantSettings } from '../../store/quantSettings.ts';

/** The config without its exclusions, as comparable text. */
function withoutExclusions(config: QuantConfig): string {
  return configToJSON({ ...config, nodesToExclude: [], opTypesToExclude: [], subgraphsToExclude: [], fp16SubgraphsToFp32: [] });
}

/** The page settings that give exactly `config` (exclusions aside), or null when no preset does. */
export function settingsForConfig(config: QuantConfig, presetHint?: string | null): QuantSettings | null {
  const wanted = withoutExclusions(config);
  const order = isPresetName(presetHint) ? [presetHint, ...PRESET_NAMES.filter((p) => p !== presetHint)] : PRESET_NAMES;
  for (const preset of order) {
    const x = config.extraOptions;
    const fp16 = x.QuantizeFP16 || x.UseFP32Scale || x.ConvertFP16ToFP32 ? { fp16: { quantizeFp16: x.QuantizeFP16, useFp32Scale: x.UseFP32Scale, convertAll: x.ConvertFP16ToFP32 } } : {};
    // A method other than the preset's is the page's method choice on top of that preset.
    if (!methodsFor(preset).includes(config.calibrationMethod)) continue;
    const method = config.calibrationMethod !== getPreset(preset).calibrationMethod ? { calibrationMethod: config.calibrationMethod } : {};
    const safe = config.saturationSafeWeights ? { saturationSafeWeights: true } : {};
    const settings: QuantSettings = { preset, perChannel: config.perChannel, useRandomData: config.extraOptions.UseRandomData, tensorOverrides: config.extraOptions.TensorQuantOverrides, ...fp16, ...method, ...safe };
    if (withoutExclusions(configOf(settings)) === wanted) return settings;
  }
  return null;
}
