import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  configFromJSON,
  configToJSON,
  quarkCalibrateMethod,
  validateConfig,
  withOptions,
} from './config.ts';

function errorOf(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

describe('validateConfig: defaults', () => {
  it('an empty object is ORT/Quark defaults: int8/int8, MinMax, float scales, per tensor', () => {
    const c = validateConfig({});
    expect(c).toMatchObject({
      activationType: 'int8', // quantize_static activation_type=QuantType.QInt8
      weightType: 'int8',
      calibrationMethod: 'MinMax',
      scaleType: 'float32',
      perChannel: false,
      reduceRange: false,
      opTypesToQuantize: [],
      subgraphsToExclude: [],
      enableNpuCnn: false,
      includeCle: false,
    });
    // Each option with its default in ORT's and Quark's quantize_static extra_options.
    const documented: [keyof typeof c.extraOptions, unknown][] = [
      ['ActivationSymmetric', false], // documented default of both references
      ['WeightSymmetric', true], // int8 weights
      ['Int32Bias', true],
      ['QuantizeBias', true],
      ['AlignConcat', false],
      ['CalibTensorRangeSymmetric', false],
      ['Percentile', 99.999],
      ['NumBins', 2048],
      ['NumQuantizedBins', 128],
      ['MinMSEMode', 'All'],
      ['MinimumRealRange', null],
      ['UseQDQContribOps', false],
    ];
    expect(documented.map(([option]) => [option, c.extraOptions[option]])).toEqual(documented);
  });
  it('fills dependent defaults the way the references do', () => {
    // WeightSymmetric follows the weight type's signedness (qdq_quantizer.is_weight_symmetric).
    expect(validateConfig({ weightType: 'uint8' }).extraOptions.WeightSymmetric).toBe(false);
    // Int32Bias is false under enable_npu_cnn (Quark docs, Int32Bias).
    expect(validateConfig({ enableNpuCnn: true }).extraOptions.Int32Bias).toBe(false);
    // Align* default on with power-of-two scales; the calibration range is symmetric then too.
    const pof2 = validateConfig({ scaleType: 'powerOfTwo', calibrationMethod: 'MinMSE' }).extraOptions;
    expect([pof2.AlignConcat, pof2.AlignSlice, pof2.CalibTensorRangeSymmetric]).toEqual([true, true, true]);
    // Percentile calibrators are symmetric by default; Entropy uses 2048 bins (not ORT's 128, which cannot search).
    expect(validateConfig({ calibrationMethod: 'Percentile' }).extraOptions.CalibTensorRangeSymmetric).toBe(true);
    expect(validateConfig({ calibrationMethod: 'Entropy' }).extraOptions.NumBins).toBe(2048);
  });
  it('an explicit value beats the default', () => {
    const c = validateConfig({ enableNpuCnn: true, extraOptions: { Int32Bias: true, MinimumRealRange: 1e-4 } });
    expect(c.extraOptions.Int32Bias).toBe(true);
    expect(c.extraOptions.MinimumRealRange).toBe(1e-4);
  });
  it('keeps exclusions', () => {
    const c = validateConfig({
      nodesToExclude: ['/model.22/Concat_3'],
      opTypesToExclude: ['Softmax'],
      subgraphsToExclude: [{ starts: ['/model.22/Concat_3'], ends: ['/model.22/Concat_5'] }],
    });
    expect(c.subgraphsToExclude).toEqual([{ starts: ['/model.22/Concat_3'], ends: ['/model.22/Concat_5'] }]);
    expect(c.opTypesToExclude).toEqual(['Softmax']);
  });
});

describe('validateConfig: errors name the field', () => {
  const enumOf = (values: string) => `expected one of ${values}, got`;
  it.each([
    [{ activationType: 'int9' }, 'config.activationType', `${enumOf('int8, uint8, int16, uint16')} "int9"`],
    [{ weightType: 4 }, 'config.weightType', `${enumOf('int8, uint8, int16, uint16')} 4`],
    [{ perChannel: 'yes' }, 'config.perChannel', 'expected true or false, got "yes"'],
    [
      { calibrationMethod: 'KL' },
      'config.calibrationMethod',
      `${enumOf('MinMax, Percentile, Entropy, MinMSE, LayerwisePercentile, ConsumerMSE, Sequential')} "KL"`,
    ],
    [{ nodesToExclude: 'Conv_1' }, 'config.nodesToExclude', 'expected an array of names, got "Conv_1"'],
    [{ nodesToExclude: ['a', ''] }, 'config.nodesToExclude[1]', 'expected a non-empty string, got ""'],
    [{ extraOptions: { Percentile: 101 } }, 'config.extraOptions.Percentile', 'expected a number in (0, 100], got 101'],
    [
      { extraOptions: { NumBins: 10.5 } },
      'config.extraOptions.NumBins',
      'expected an integer in [1, 16777216], got 10.5',
    ],
    [
      { extraOptions: { MinMSEMode: 'Fast' } },
      'config.extraOptions.MinMSEMode',
      `${enumOf('All, MostCommon, Percentile')} "Fast"`,
    ],
  ])('%j → %s', (input, field, message) => {
    const e = errorOf(() => validateConfig(input));
    expect(e.name).toBe('ConfigError');
    expect(e.field).toBe(field);
    expect(e.message).toBe(`${field}: ${message}`);
  });
  it('rejects unknown fields, with a hint for typos and Quark names', () => {
    expect(errorOf(() => validateConfig({ perChanel: true })).message).toBe(
      'config.perChanel: unknown field (did you mean perChannel?)',
    );
    expect(errorOf(() => validateConfig({ per_channel: true })).message).toBe(
      "config.per_channel: unknown field (Quark's per_channel is perChannel here)",
    );
    expect(errorOf(() => validateConfig({ extraOptions: { ActivationSymetric: true } })).field).toBe(
      'config.extraOptions.ActivationSymetric',
    );
    expect(errorOf(() => validateConfig({ extraOptions: { ConvertBNToConv: true } })).message).toBe(
      'config.extraOptions.ConvertBNToConv: unknown field',
    );
  });
  it('checks subgraph exclusions', () => {
    expect(errorOf(() => validateConfig({ subgraphsToExclude: [{ starts: ['a'] }] })).field).toBe(
      'config.subgraphsToExclude[0].ends',
    );
    expect(errorOf(() => validateConfig({ subgraphsToExclude: [{ starts: [], ends: ['b'] }] })).field).toBe(
      'config.subgraphsToExclude[0].starts',
    );
    const extraKey = { subgraphsToExclude: [{ starts: ['a'], ends: ['b'], mid: [] }] };
    expect(errorOf(() => validateConfig(extraKey)).field).toBe('config.subgraphsToExclude[0].mid');
  });
  it('rejects combinations the references cannot run', () => {
    // Quark deploys power-of-two scales only with MinMax (NonOverflow) or MinMSE.
    expect(errorOf(() => validateConfig({ scaleType: 'powerOfTwo', calibrationMethod: 'Percentile' })).field).toBe(
      'config.calibrationMethod',
    );
    expect(errorOf(() => validateConfig({ extraOptions: { NumBins: 64, NumQuantizedBins: 128 } })).field).toBe(
      'config.extraOptions.NumQuantizedBins',
    );
  });
  it('rejects what is not an object', () => {
    expect(errorOf(() => validateConfig(null)).field).toBe('config');
    expect(errorOf(() => validateConfig([])).field).toBe('config');
    expect(errorOf(() => validateConfig({ extraOptions: 3 })).field).toBe('config.extraOptions');
  });
});

describe('JSON round trip', () => {
  it('configFromJSON(configToJSON(c)) equals c, and the text lists every field', () => {
    const c = validateConfig({
      activationType: 'uint16',
      perChannel: true,
      subgraphsToExclude: [{ starts: ['s'], ends: ['e1', 'e2'] }],
      extraOptions: { MinimumRealRange: 0.001, Percentile: 99.99 },
    });
    const text = configToJSON(c);
    expect(configFromJSON(text)).toEqual(c);
    expect(Object.keys(JSON.parse(text).extraOptions)).toHaveLength(Object.keys(c.extraOptions).length);
    expect(configToJSON(configFromJSON(text))).toBe(text);
  });
  it('bad JSON is a ConfigError on config', () => {
    const e = errorOf(() => configFromJSON('{"perChannel": tru'));
    expect(e.field).toBe('config');
  });
});

describe('quarkCalibrateMethod (config/maps.py)', () => {
  it.each([
    ['MinMax', 'float32', 'CalibrationMethod.MinMax'],
    ['Percentile', 'float32', 'CalibrationMethod.Percentile'],
    ['Entropy', 'float32', 'CalibrationMethod.Entropy'],
    ['MinMax', 'powerOfTwo', 'PowerOfTwoMethod.NonOverflow'],
    ['MinMSE', 'powerOfTwo', 'PowerOfTwoMethod.MinMSE'],
  ] as const)('%s with %s scales is %s', (calibrationMethod, scaleType, name) => {
    expect(quarkCalibrateMethod({ calibrationMethod, scaleType })).toBe(name);
  });
});

describe('recovery options: CLE, bias correction, FastFinetune (Quark names)', () => {
  it('defaults: off, Quark CLE defaults, FastFinetune per Quark TrainParameters', () => {
    const c = validateConfig({});
    expect([c.includeCle, c.includeFastFt, c.includeBiasCorrection]).toEqual([false, false, false]);
    expect(c.extraOptions).toMatchObject({ CLESteps: 1, CLETotalLayerDiffThreshold: 2e-7, CLEScaleAppendBias: true });
    expect(c.extraOptions.FastFinetune).toMatchObject({
      OptimAlgorithm: 'adaround',
      NumIterations: 1000,
      LearningRate: 0.1,
      BatchSize: 1,
      NumBatches: 1,
      RegParam: 0.01,
      BetaRange: [20, 2],
      WarmStart: 0.2,
    });
  });
  it('a partial FastFinetune is completed; AdaQuant gets its own learning-rate default', () => {
    const ft = validateConfig({
      includeFastFt: true,
      extraOptions: { FastFinetune: { OptimAlgorithm: 'adaquant', NumIterations: 50 } },
    }).extraOptions.FastFinetune;
    expect(ft).toMatchObject({ OptimAlgorithm: 'adaquant', NumIterations: 50, LearningRate: 1e-5, UpdateBias: true });
  });
  it.each([
    [
      { extraOptions: { FastFinetune: { OptimAlgorithm: 'adamw' } } },
      'config.extraOptions.FastFinetune.OptimAlgorithm',
    ],
    [{ extraOptions: { FastFinetune: { NumIterations: 0 } } }, 'config.extraOptions.FastFinetune.NumIterations'],
    [{ extraOptions: { FastFinetune: { BetaRange: [20] } } }, 'config.extraOptions.FastFinetune.BetaRange'],
    [{ extraOptions: { FastFinetune: { OptimDevice: 'cuda:0' } } }, 'config.extraOptions.FastFinetune.OptimDevice'],
    [{ extraOptions: { CLESteps: 0 } }, 'config.extraOptions.CLESteps'],
    [{ include_fast_ft: true }, 'config.include_fast_ft'],
  ])('%j is refused at %s', (input, field) => {
    expect(errorOf(() => validateConfig(input)).field).toBe(field);
  });
  it('round-trips through JSON', () => {
    const c = validateConfig({
      includeCle: true,
      includeBiasCorrection: true,
      includeFastFt: true,
      extraOptions: { CLESteps: 3, FastFinetune: { OptimAlgorithm: 'adaquant', BetaRange: [10, 1], DataSize: 8 } },
    });
    expect(configFromJSON(configToJSON(c))).toEqual(c);
  });
});

describe('withOptions: a validated edit of a configuration', () => {
  const base = validateConfig({
    activationType: 'uint8',
    calibrationMethod: 'Percentile',
    extraOptions: { Percentile: 99.9, FastFinetune: { OptimAlgorithm: 'adaquant', NumIterations: 50 } },
  });

  it('changes the fields given, keeps every other, and leaves its argument alone', () => {
    const before = configToJSON(base);
    const c = withOptions(base, { perChannel: true, nodesToExclude: ['Conv_1'], extraOptions: { SmoothAlpha: 0.7 } });
    expect(c.perChannel).toBe(true);
    expect(c.nodesToExclude).toEqual(['Conv_1']);
    expect(c.extraOptions.SmoothAlpha).toBe(0.7);
    expect(c.activationType).toBe('uint8');
    expect(c.extraOptions.Percentile).toBe(99.9);
    expect(configToJSON(base)).toBe(before);
    expect(configToJSON(withOptions(base, {}))).toBe(before);
  });

  it('merges FastFinetune field by field', () => {
    const c = withOptions(base, { extraOptions: { FastFinetune: { NumIterations: 7 } } });
    expect(c.extraOptions.FastFinetune).toMatchObject({
      OptimAlgorithm: 'adaquant',
      NumIterations: 7,
      LearningRate: 1e-5,
    });
  });

  it('a field given as undefined goes back to its derived default', () => {
    const adaround = withOptions(base, {
      extraOptions: { FastFinetune: { OptimAlgorithm: 'adaround', LearningRate: undefined } },
    });
    expect(adaround.extraOptions.FastFinetune.LearningRate).toBe(0.1);
    expect(adaround.extraOptions.FastFinetune.NumIterations).toBe(50);
    const kept = withOptions(base, { extraOptions: { FastFinetune: { OptimAlgorithm: 'adaround' } } });
    expect(kept.extraOptions.FastFinetune.LearningRate).toBe(1e-5);
    const symmetric = validateConfig({ calibrationMethod: 'Percentile' }).extraOptions.CalibTensorRangeSymmetric;
    const minmax = withOptions(withOptions(base, { calibrationMethod: 'MinMax' }), {
      extraOptions: { CalibTensorRangeSymmetric: undefined },
    });
    expect(minmax.extraOptions.CalibTensorRangeSymmetric).toBe(
      validateConfig({}).extraOptions.CalibTensorRangeSymmetric,
    );
    expect(base.extraOptions.CalibTensorRangeSymmetric).toBe(symmetric);
    expect(withOptions(base, { extraOptions: { FastFinetune: undefined } }).extraOptions.FastFinetune).toEqual(
      validateConfig({}).extraOptions.FastFinetune,
    );
  });

  it('validates the result: a bad value is a ConfigError naming its field', () => {
    expect(errorOf(() => withOptions(base, { extraOptions: { SmoothAlpha: 2 } })).field).toBe(
      'config.extraOptions.SmoothAlpha',
    );
    expect(errorOf(() => withOptions(base, { extraOptions: { FastFinetune: { LearningRate: -1 } } })).field).toBe(
      'config.extraOptions.FastFinetune.LearningRate',
    );
    expect(errorOf(() => withOptions(base, { activationType: 'int4' as never })).field).toBe('config.activationType');
    expect(errorOf(() => withOptions(base, { perChanel: true } as never)).field).toBe('config.perChanel');
    expect(errorOf(() => withOptions(base, { extraOptions: { NumBins: 8, NumQuantizedBins: 16 } })).field).toBe(
      'config.extraOptions.NumQuantizedBins',
    );
  });
});
