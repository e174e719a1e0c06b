/**
 * Named presets, each the configuration its reference sets, nothing tuned by us.
 *
 * Quark presets follow `QConfig.get_default_config(name)` (DefaultConfigMapping in
 * quark/onnx/quantization/config/custom_config.py, legacy QuantizationConfig defaults for what they leave out);
 * U8S8 and S8S8 follow ONNX Runtime's quantize_static (quantize.py). A preset states only what its reference
 * states; validateConfig fills the rest with the same defaults as any user config, so a preset and a hand-written
 * config that say the same thing are the same thing. Options Quark presets set that this tool does not model are
 * listed in `notModelled` and otherwise ignored. No preset turns on cross-layer equalization: in the Ryzen AI
 * best-practice flow ("Best Practice for Ryzen AI in AMD Quark ONNX") CLE is the rung after plain XINT8, so it is a step of its own.
 */

import {
  ConfigError,
  validateConfig,
  type CalibrationMethod,
  type QuantConfig,
  type QuantConfigInput,
} from './config.ts';

export const PRESET_NAMES = ['XINT8', 'VINT8', 'A8W8', 'A16W8', 'U8S8', 'S8S8', 'U8S8_AAWS', 'S8S8_AAWS'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

export interface PresetDefinition {
  readonly name: PresetName;
  /** One line for the UI. */
  readonly summary: string;
  /** Where the values come from. */
  readonly source: string;
  /** Exactly what the reference sets. */
  readonly input: QuantConfigInput;
  /** Reference options with no counterpart here (graph rewrites, Quark's own Q/DQ format, ...). */
  readonly notModelled: readonly string[];
}

const QUARK = 'AMD Quark quark/onnx/quantization/config/custom_config.py';
const ORT = 'ONNX Runtime quantize_static (onnxruntime/python/tools/quantization/quantize.py)';

/** The extra_options Quark's float-scale Ryzen AI presets (A8W8_CONFIG, A16W8_CONFIG) both set. */
const RYZEN_FLOAT_SCALE_OPTIONS = {
  ActivationSymmetric: true,
  ForceQuantizeNoInputCheck: true,
  AlignSlice: false,
  FoldRelu: true,
  AlignConcat: true,
} as const;

const PRESETS: Readonly<Record<PresetName, PresetDefinition>> = {
  XINT8: {
    name: 'XINT8',
    summary: 'Ryzen AI NPU: power-of-two scales, symmetric int8 activations and weights, MinMSE',
    source: `${QUARK}: XINT8_CONFIG; int8 activations as the Ryzen AI best-practice guide and Quark's XINT8_QCONFIG state`,
    input: {
      calibrationMethod: 'MinMSE', // PowerOfTwoMethod.MinMSE
      scaleType: 'powerOfTwo',
      // The legacy XINT8_CONFIG writes QUInt8 with zero point 128, the same grid ((q-128)·s for q in 0..255)
      // as int8 with zero point 0; the best-practice guide and XINT8_QCONFIG say int8, which we follow.
      activationType: 'int8',
      weightType: 'int8',
      enableNpuCnn: true,
      extraOptions: { ActivationSymmetric: true, ForceQuantizeNoInputCheck: true },
    },
    notModelled: [],
  },
  VINT8: {
    name: 'VINT8',
    summary: 'Vitis AI NPU: power-of-two scales, symmetric int8 activations and weights, int8 bias, MinMSE',
    source: `${QUARK}: VINT8_CONFIG; enable_npu_cnn from the Vitis AI 6.2 Ryzen AI quantization guide`,
    input: {
      calibrationMethod: 'MinMSE', // PowerOfTwoMethod.MinMSE
      scaleType: 'powerOfTwo',
      activationType: 'int8',
      weightType: 'int8',
      enableNpuCnn: true, // "mandatory" in the Vitis AI guide, not in VINT8_CONFIG itself
      extraOptions: {
        ActivationSymmetric: true,
        UseRandomData: true,
        Int32Bias: false,
        DedicatedQDQPair: true,
        QuantizeAllOpTypes: true,
      },
    },
    notModelled: [
      'optimize_model=False',
      'ConvertBNToConv=True',
      'ConvertSigmoidToHardSigmoid=False',
      'ConvertClipToRelu=True',
      'ConvertSplitToSlice=True',
      'SplitLargeKernelPool=False',
      'ReplaceClip6Relu=True',
      'ConvertReduceMeanToGlobalAvgPool=False',
      'RemoveQDQConvClip=False',
      'RemoveQDQConvPRelu=False',
      'RemoveQDQConvRelu=False',
      'RemoveQDQConvLeakyRelu=False',
    ],
  },
  A8W8: {
    name: 'A8W8',
    summary: 'Ryzen AI float scales: symmetric int8 activations and weights, int32 bias, MinMax',
    source: `${QUARK}: A8W8_CONFIG`,
    input: {
      calibrationMethod: 'MinMax',
      scaleType: 'float32',
      activationType: 'int8',
      weightType: 'int8',
      extraOptions: { ...RYZEN_FLOAT_SCALE_OPTIONS },
    },
    notModelled: ['quant_format=ExtendedQuantFormat.QDQ (Quark custom Q/DQ ops; standard Q/DQ here)'],
  },
  A16W8: {
    name: 'A16W8',
    summary: 'Ryzen AI float scales: symmetric int16 activations, int8 weights, int32 bias, MinMax',
    source: `${QUARK}: A16W8_CONFIG`,
    input: {
      calibrationMethod: 'MinMax',
      scaleType: 'float32',
      activationType: 'int16', // ExtendedQuantType.QInt16
      weightType: 'int8',
      extraOptions: { ...RYZEN_FLOAT_SCALE_OPTIONS, AlignEltwiseQuantType: true },
    },
    notModelled: ['quant_format=ExtendedQuantFormat.QDQ (Quark custom Q/DQ ops; ai.onnx-21 or com.microsoft here)'],
  },
  U8S8: {
    name: 'U8S8',
    summary: 'ONNX Runtime CPU: asymmetric uint8 activations, symmetric int8 weights, per tensor, MinMax',
    source: `${ORT} with activation_type=QUInt8, weight_type=QInt8, other arguments at their defaults`,
    input: { calibrationMethod: 'MinMax', scaleType: 'float32', activationType: 'uint8', weightType: 'int8' },
    notModelled: [],
  },
  S8S8: {
    name: 'S8S8',
    summary: 'ONNX Runtime defaults: asymmetric int8 activations, symmetric int8 weights, per tensor, MinMax',
    source: `${ORT}, all arguments at their defaults (activation_type=weight_type=QInt8)`,
    input: { calibrationMethod: 'MinMax', scaleType: 'float32', activationType: 'int8', weightType: 'int8' },
    notModelled: [],
  },
  U8S8_AAWS: {
    name: 'U8S8_AAWS',
    summary: 'Quark: asymmetric uint8 activations, symmetric int8 weights, Percentile 99.999',
    source: `${QUARK}: U8S8_AAWS_CONFIG`,
    input: {
      calibrationMethod: 'Percentile',
      scaleType: 'float32',
      activationType: 'uint8',
      weightType: 'int8',
      extraOptions: { ForceQuantizeNoInputCheck: true },
    },
    notModelled: [],
  },
  S8S8_AAWS: {
    name: 'S8S8_AAWS',
    summary: 'Quark: asymmetric int8 activations, symmetric int8 weights, Percentile 99.9999',
    source: `${QUARK}: S8S8_AAWS_CONFIG`,
    input: {
      calibrationMethod: 'Percentile',
      scaleType: 'float32',
      activationType: 'int8',
      weightType: 'int8',
      extraOptions: { Percentile: 99.9999, ForceQuantizeNoInputCheck: true },
    },
    notModelled: [],
  },
};

export function isPresetName(name: unknown): name is PresetName {
  return typeof name === 'string' && (PRESET_NAMES as readonly string[]).includes(name);
}

/** A preset's definition (its reference and raw settings), for display. */
export function presetDefinition(name: PresetName): PresetDefinition {
  return PRESETS[name];
}

/** The complete configuration of a named preset; a fresh object each call. Unknown names throw ConfigError. */
export function getPreset(name: string): QuantConfig {
  if (!isPresetName(name)) {
    const valid = PRESET_NAMES.join(', ');
    throw new ConfigError('preset', `unknown preset ${JSON.stringify(name)}; expected one of ${valid}`);
  }
  return validateConfig(structuredClone(PRESETS[name].input));
}

/**
 * A preset with another calibration method: the preset as its reference states it, the method swapped in, so
 * the options that follow the method (Percentile's symmetric histogram, Entropy's bins, ...) default for it as
 * in any configuration naming it. The preset's own method (or none) gives the preset itself. Throws ConfigError
 * for a method the preset's scale type does not take (power-of-two scales: MinMax or MinMSE).
 */
export function presetWithMethod(name: string, method: CalibrationMethod | undefined): QuantConfig {
  const preset = getPreset(name);
  if (method === undefined || method === preset.calibrationMethod) return preset;
  return validateConfig({ ...structuredClone(PRESETS[name as PresetName].input), calibrationMethod: method });
}

/**
 * Presets whose calibration method is, by default, chosen per model on the calibration samples themselves
 * (core/evaluate/calibrationMethodChoice.ts; the preset's own method keeps a tie, and is used where there are fewer
 * than 2 samples or ranges are given). A preset is here only where held-out measurement on every benchmarked model
 * (the PP-OCRv4 detector and recognizer, YOLOX-nano, YuNet, both UltraFaces) at both onnxruntime levels shows the
 * choice at least as good as the preset's own method (bench preset-methods): A8W8. An explicit method overrides it.
 */
export const HELD_IN_DEFAULT: ReadonlySet<PresetName> = new Set<PresetName>(['A8W8']);

/** Whether preset `name`'s calibration method is chosen by held-in measurement unless one is named. */
export function choosesMethodByDefault(name: string): boolean {
  return isPresetName(name) && HELD_IN_DEFAULT.has(name);
}
