import { describe, expect, it } from 'vitest';
import { ConfigError, configToJSON, validateConfig } from '../quantize/config.ts';
import { getPreset } from '../quantize/presets.ts';
import { withRecoverySwitches } from './recoverySwitches.ts';

describe('withRecoverySwitches: the recovery switches of the page and the CLI', () => {
  const base = getPreset('XINT8');

  it('sets what is given and keeps the rest', () => {
    const c = withRecoverySwitches(base, {
      cle: true,
      smoothQuant: true,
      smoothAlpha: 0.7,
      cleSteps: 3,
      finetune: true,
      algorithm: 'adaround',
      iterations: 9,
    });
    expect(c).toMatchObject({
      includeCle: true,
      includeSq: true,
      includeFastFt: true,
      includeBiasCorrection: false,
      enableNpuTransformer: false,
    });
    expect(c.extraOptions).toMatchObject({ SmoothAlpha: 0.7, CLESteps: 3 });
    expect(c.extraOptions.FastFinetune).toMatchObject({
      OptimAlgorithm: 'adaround',
      NumIterations: 9,
      LearningRate: 0.1,
    });
    expect(configToJSON(withRecoverySwitches(base, {}))).toBe(configToJSON(base));
    // A switch given false turns it off (the page's checkboxes); left out, the configuration's stays (the CLI's flags).
    expect(withRecoverySwitches(c, { cle: false }).includeCle).toBe(false);
    expect(withRecoverySwitches(c, {}).includeCle).toBe(true);
  });

  it('a new algorithm takes its own learning rate unless one is given; null is the algorithm default', () => {
    const tuned = validateConfig({
      extraOptions: { FastFinetune: { OptimAlgorithm: 'adaround', LearningRate: 0.05 } },
    });
    expect(withRecoverySwitches(tuned, { algorithm: 'adaround' }).extraOptions.FastFinetune.LearningRate).toBe(0.05);
    expect(withRecoverySwitches(tuned, { algorithm: 'adaquant' }).extraOptions.FastFinetune.LearningRate).toBe(1e-5);
    expect(
      withRecoverySwitches(tuned, { algorithm: 'adaquant', learningRate: 0.002 }).extraOptions.FastFinetune
        .LearningRate,
    ).toBe(0.002);
    expect(
      withRecoverySwitches(tuned, { algorithm: 'adaround', learningRate: null }).extraOptions.FastFinetune.LearningRate,
    ).toBe(0.1);
  });

  it('a bad value is a ConfigError naming its field', () => {
    expect(() => withRecoverySwitches(base, { smoothAlpha: 1.5 })).toThrow(ConfigError);
    expect(() => withRecoverySwitches(base, { iterations: 0 })).toThrow(/FastFinetune\.NumIterations/);
  });
});
