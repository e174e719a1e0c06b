import { describe, expect, it } from 'vitest';
import { validateConfig, withOptions } from '../../../core/quantize/config.ts';
import { getPreset } from '../../../core/quantize/presets.ts';
import { configOf } from '../../store/quantSettings.ts';
import { recoveryStepsOf, settingsForConfig } from './importedSettings.ts';

describe('settings of an imported configuration', () => {
  it('finds the preset, per-channel and random-data switches, exclusions aside', () => {
    const config = {
      ...configOf({ preset: 'A8W8', perChannel: true, useRandomData: true, tensorOverrides: {} }),
      nodesToExclude: ['Conv_0'],
    };
    // A file names its method: for A8W8, whose default is the held-in choice, that method is kept as a fixed pick.
    expect(settingsForConfig(config)).toEqual({
      preset: 'A8W8',
      perChannel: true,
      useRandomData: true,
      tensorOverrides: {},
      calibrationMethod: 'MinMax',
    });
  });

  it("keeps mixed precision's per-tensor types (TensorQuantOverrides) through export and import", () => {
    const tensorOverrides = {
      conv1_out: [{ quant_type: 'int16' as const }],
      'conv2.weight': [{ quant_type: 'int16' as const }],
    };
    const config = configOf({ preset: 'XINT8', perChannel: false, useRandomData: false, tensorOverrides });
    expect(config.extraOptions.TensorQuantOverrides).toEqual(tensorOverrides);
    expect(settingsForConfig(validateConfig(JSON.parse(JSON.stringify(config))), 'XINT8')).toEqual({
      preset: 'XINT8',
      perChannel: false,
      useRandomData: false,
      tensorOverrides,
    });
  });

  it('keeps quantizing inside control flow (EnableSubgraph) through export and import, and off leaves no setting', () => {
    const config = configOf({
      preset: 'XINT8',
      perChannel: false,
      useRandomData: false,
      tensorOverrides: {},
      enableSubgraph: true,
    });
    expect(config.extraOptions.EnableSubgraph).toBe(true);
    expect(settingsForConfig(validateConfig(JSON.parse(JSON.stringify(config))), 'XINT8')).toMatchObject({
      preset: 'XINT8',
      enableSubgraph: true,
    });
    expect(settingsForConfig(getPreset('XINT8'), 'XINT8')).not.toHaveProperty('enableSubgraph');
  });

  it("reads a method other than the preset's as the page's method choice, with the options that follow it defaulted", () => {
    const config = configOf({
      preset: 'A8W8',
      perChannel: true,
      useRandomData: false,
      tensorOverrides: {},
      calibrationMethod: 'Percentile',
    });
    expect(config.calibrationMethod).toBe('Percentile');
    expect(config.extraOptions.CalibTensorRangeSymmetric).toBe(true); // as a config naming Percentile gets it
    expect(settingsForConfig(validateConfig(JSON.parse(JSON.stringify(config))), 'A8W8')).toEqual({
      preset: 'A8W8',
      perChannel: true,
      useRandomData: false,
      tensorOverrides: {},
      calibrationMethod: 'Percentile',
    });
  });

  it("keeps saturation-safe weights (the page's CPU-kernels switch) through export and import; off is no setting", () => {
    const config = configOf({
      preset: 'U8S8',
      perChannel: true,
      useRandomData: false,
      tensorOverrides: {},
      saturationSafeWeights: true,
    });
    expect(config.saturationSafeWeights).toBe(true);
    expect(settingsForConfig(validateConfig(JSON.parse(JSON.stringify(config))), 'U8S8')).toEqual({
      preset: 'U8S8',
      perChannel: true,
      useRandomData: false,
      tensorOverrides: {},
      saturationSafeWeights: true,
    });
    expect(
      configOf({ preset: 'U8S8', perChannel: true, useRandomData: false, tensorOverrides: {} }).saturationSafeWeights,
    ).toBe(false);
  });

  it('prefers the preset the file names when two presets give the same config', () => {
    for (const preset of ['U8S8', 'XINT8'] as const)
      expect(settingsForConfig(getPreset(preset), preset)?.preset).toBe(preset);
  });

  it("reads the recovery steps a file switches on (an adopted rung's config) as the recovery card's switches, not as settings", () => {
    const plain = configOf({
      preset: 'XINT8',
      perChannel: true,
      useRandomData: false,
      tensorOverrides: { t: [{ quant_type: 'int16' as const }] },
    });
    const rung = withOptions(plain, {
      enableNpuTransformer: true,
      includeSq: true,
      includeFastFt: true,
      extraOptions: {
        SmoothAlpha: 0.7,
        FastFinetune: { OptimAlgorithm: 'adaquant', NumIterations: 50, LearningRate: 1e-5 },
      },
    });
    expect(settingsForConfig(rung, 'XINT8')).toEqual({
      preset: 'XINT8',
      perChannel: true,
      useRandomData: false,
      tensorOverrides: { t: [{ quant_type: 'int16' }] },
    });
    expect(recoveryStepsOf(rung)).toEqual({
      attention: true,
      smoothQuant: true,
      smoothAlpha: 0.7,
      cle: false,
      biasCorrection: false,
      finetune: 'adaquant',
      iterations: 50,
      learningRate: null,
    });
    expect(recoveryStepsOf(plain)).toEqual({ attention: false, smoothQuant: false, cle: false, biasCorrection: false });
  });

  it('is null for a configuration no preset gives', () => {
    const tuned = validateConfig({
      ...JSON.parse(JSON.stringify(getPreset('U8S8'))),
      extraOptions: { Percentile: 99.5 },
      calibrationMethod: 'Percentile',
    });
    expect(settingsForConfig(tuned)).toBeNull();
  });
});
