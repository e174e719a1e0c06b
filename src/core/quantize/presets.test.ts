import { describe, expect, it } from 'vitest';
import { ConfigError, configFromJSON, configToJSON } from './config.ts';
import { PRESET_NAMES, getPreset, presetDefinition, presetWithMethod } from './presets.ts';

// Sources: Quark = quark/onnx/quantization/config/custom_config.py (DefaultConfigMapping, legacy
// QuantizationConfig); Quark docs = "Full List of Quantization Configuration Features" (extra_options defaults);
// ORT = onnxruntime quantize.py quantize_static and qdq_quantizer defaults.

describe('XINT8', () => {
  const c = getPreset('XINT8');
  it('power-of-two MinMSE, int8 symmetric activations and weights', () => {
    expect(c.calibrationMethod).toBe('MinMSE'); // Quark XINT8_CONFIG: PowerOfTwoMethod.MinMSE
    expect(c.scaleType).toBe('powerOfTwo');
    // Quark's "Best Practice for Ryzen AI in AMD Quark ONNX": "symmetric INT8 ... for both activations and weights" (Quark's legacy
    // XINT8_CONFIG stores QUInt8 with zero point 128: the same grid).
    expect(c.activationType).toBe('int8');
    expect(c.weightType).toBe('int8'); // Quark: weight_type=QuantType.QInt8
    expect(c.extraOptions.ActivationSymmetric).toBe(true); // Quark: extra_options ActivationSymmetric
    expect(c.extraOptions.WeightSymmetric).toBe(true); // quantizer default for int8 weights
  });
  it('NPU CNN: no int32 bias, per tensor, aligned Concat/Slice', () => {
    expect(c.enableNpuCnn).toBe(true); // Quark: enable_npu_cnn=True
    expect(c.extraOptions.Int32Bias).toBe(false); // Quark docs: default False when enable_npu_cnn
    expect(c.perChannel).toBe(false); // QuantizationConfig default; NPU has no per-channel
    expect([c.extraOptions.AlignConcat, c.extraOptions.AlignSlice]).toEqual([true, true]); // docs: on with pof2
    expect(c.extraOptions.ForceQuantizeNoInputCheck).toBe(true); // Quark XINT8_CONFIG
    expect(c.extraOptions.MinMSEMode).toBe('All'); // calibrators.py MinMSE default
    expect(c.includeCle).toBe(false); // CLE is the best-practice flow's next rung, not part of XINT8
  });
});

describe('VINT8', () => {
  const c = getPreset('VINT8');
  it('power-of-two MinMSE, int8 symmetric activations and weights', () => {
    expect([c.calibrationMethod, c.scaleType]).toEqual(['MinMSE', 'powerOfTwo']); // Quark VINT8_CONFIG
    expect([c.activationType, c.weightType]).toEqual(['int8', 'int8']);
    expect(c.extraOptions.ActivationSymmetric).toBe(true);
  });
  it('the four mandatory Vitis AI options and random-data calibration', () => {
    expect(c.extraOptions.Int32Bias).toBe(false); // VINT8_CONFIG and Vitis AI guide
    expect(c.extraOptions.DedicatedQDQPair).toBe(true);
    expect(c.extraOptions.QuantizeAllOpTypes).toBe(true);
    expect(c.enableNpuCnn).toBe(true); // Vitis AI guide (not in VINT8_CONFIG)
    expect(c.extraOptions.UseRandomData).toBe(true); // VINT8_CONFIG
  });
  it('lists the graph rewrites it does not model', () => {
    expect(presetDefinition('VINT8').notModelled).toContain('ConvertBNToConv=True');
  });
});

describe('A8W8', () => {
  const c = getPreset('A8W8');
  it('float scales, MinMax, symmetric int8 activations and weights, int32 bias', () => {
    expect([c.calibrationMethod, c.scaleType]).toEqual(['MinMax', 'float32']); // Quark A8W8_CONFIG
    expect([c.activationType, c.weightType]).toEqual(['int8', 'int8']);
    expect(c.extraOptions.ActivationSymmetric).toBe(true);
    expect(c.extraOptions.WeightSymmetric).toBe(true);
    expect(c.extraOptions.Int32Bias).toBe(true); // docs default (no enable_npu_cnn); Quark A8W8 doc: int32 bias
    expect(c.perChannel).toBe(false);
  });
  it('AlignSlice off, AlignConcat and FoldRelu on', () => {
    expect(c.extraOptions.AlignSlice).toBe(false); // Quark A8W8_CONFIG
    expect(c.extraOptions.AlignConcat).toBe(true);
    expect(c.extraOptions.FoldRelu).toBe(true);
    expect(c.extraOptions.AlignEltwiseQuantType).toBe(false);
  });
});

describe('A16W8', () => {
  const c = getPreset('A16W8');
  it('int16 symmetric activations, int8 weights, MinMax, float scales', () => {
    expect([c.activationType, c.weightType]).toEqual(['int16', 'int8']); // Quark: ExtendedQuantType.QInt16, QInt8
    expect([c.calibrationMethod, c.scaleType]).toEqual(['MinMax', 'float32']);
    expect(c.extraOptions.ActivationSymmetric).toBe(true);
    expect(c.extraOptions.Int32Bias).toBe(true);
  });
  it('as A8W8 plus AlignEltwiseQuantType', () => {
    expect(c.extraOptions.AlignEltwiseQuantType).toBe(true); // Quark A16W8_CONFIG
    const { AlignSlice, AlignConcat, FoldRelu } = c.extraOptions;
    expect([AlignSlice, AlignConcat, FoldRelu]).toEqual([false, true, true]);
  });
});

describe('U8S8 and S8S8 (ONNX Runtime quantize_static)', () => {
  it('U8S8: asymmetric uint8 activations, symmetric int8 weights, per tensor, MinMax, int32 bias', () => {
    const c = getPreset('U8S8');
    expect([c.activationType, c.weightType]).toEqual(['uint8', 'int8']);
    expect(c.extraOptions.ActivationSymmetric).toBe(false); // ORT docstring: default False
    expect(c.extraOptions.WeightSymmetric).toBe(true); // ORT docstring: default True
    expect([c.calibrationMethod, c.scaleType, c.perChannel]).toEqual(['MinMax', 'float32', false]);
    expect(c.extraOptions.CalibTensorRangeSymmetric).toBe(false); // MinMax calibrator default
    expect(c.extraOptions.Int32Bias).toBe(true);
    expect([c.includeCle, c.enableNpuCnn]).toEqual([false, false]); // ORT has neither
  });
  it('S8S8 is quantize_static with every argument at its default (QInt8 activations and weights)', () => {
    const c = getPreset('S8S8');
    expect([c.activationType, c.weightType]).toEqual(['int8', 'int8']);
    expect([c.extraOptions.ActivationSymmetric, c.extraOptions.WeightSymmetric]).toEqual([false, true]);
    expect([c.calibrationMethod, c.perChannel]).toEqual(['MinMax', false]);
  });
});

describe('U8S8_AAWS and S8S8_AAWS (Quark)', () => {
  it('U8S8_AAWS: Percentile 99.999 on a symmetric histogram, asymmetric uint8 activations', () => {
    const c = getPreset('U8S8_AAWS');
    expect([c.activationType, c.weightType, c.calibrationMethod]).toEqual(['uint8', 'int8', 'Percentile']);
    expect(c.extraOptions.Percentile).toBe(99.999); // docs default
    expect(c.extraOptions.CalibTensorRangeSymmetric).toBe(true); // calibrators.py Percentile default
    expect(c.extraOptions.NumBins).toBe(2048);
    expect(c.extraOptions.ActivationSymmetric).toBe(false);
  });
  it('S8S8_AAWS: Percentile 99.9999, int8 activations', () => {
    const c = getPreset('S8S8_AAWS');
    expect([c.activationType, c.calibrationMethod]).toEqual(['int8', 'Percentile']);
    expect(c.extraOptions.Percentile).toBe(99.9999); // Quark S8S8_AAWS_CONFIG
    expect(c.extraOptions.ForceQuantizeNoInputCheck).toBe(true);
  });
});

describe('getPreset', () => {
  it('every preset validates and survives a JSON round trip', () => {
    for (const name of PRESET_NAMES) {
      const c = getPreset(name);
      expect(configFromJSON(configToJSON(c))).toEqual(c);
    }
  });
  it('returns a fresh object each time', () => {
    const a = getPreset('A8W8');
    (a.nodesToExclude as string[]).push('x');
    expect(getPreset('A8W8').nodesToExclude).toEqual([]);
  });
  it('an unknown name is a ConfigError listing the valid ones', () => {
    expect(() => getPreset('INT8')).toThrow(ConfigError);
    expect(() => getPreset('INT8')).toThrow(
      'preset: unknown preset "INT8"; expected one of XINT8, VINT8, A8W8, A16W8, U8S8, S8S8, U8S8_AAWS, S8S8_AAWS',
    );
  });
});

describe('presetWithMethod', () => {
  it('swaps the method in with the options that follow it defaulted, and gives the preset itself for its own method', () => {
    const entropy = presetWithMethod('A8W8', 'Entropy');
    expect(entropy).toEqual({ ...getPreset('A8W8'), calibrationMethod: 'Entropy' });
    const percentile = presetWithMethod('A8W8', 'Percentile');
    expect(percentile.extraOptions.CalibTensorRangeSymmetric).toBe(true);
    expect(getPreset('A8W8').extraOptions.CalibTensorRangeSymmetric).toBe(false);
    expect(presetWithMethod('A8W8', 'MinMax')).toEqual(getPreset('A8W8'));
    expect(presetWithMethod('A8W8', undefined)).toEqual(getPreset('A8W8'));
  });

  it('refuses a method the scale type does not take (power of two: MinMax or MinMSE)', () => {
    expect(() => presetWithMethod('XINT8', 'Entropy')).toThrow(ConfigError);
    expect(presetWithMethod('XINT8', 'MinMax').calibrationMethod).toBe('MinMax');
  });
});
