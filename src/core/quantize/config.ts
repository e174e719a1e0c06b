/**
 * The one quantization configuration, shaped like AMD Quark's QuantizationConfig so that Quark and ONNX Runtime
 * users recognise it: the constructor arguments become camelCase fields (activation_type → activationType), and
 * `extraOptions` keeps Quark's (and ORT's) exact PascalCase keys (ActivationSymmetric, Int32Bias, ...).
 *
 * A QuantConfig is always complete: validateConfig accepts a partial JSON object, rejects anything unknown or
 * ill-typed with a ConfigError naming the field, and fills every missing key with the default the references
 * give for that combination (e.g. Int32Bias is false when enableNpuCnn is set). Downstream code never guesses a
 * default. This module holds data and validation only; it quantizes nothing.
 */
import { StudioError } from '../onnx/errors.ts';

import { QUANT_TYPES } from './numeric.ts';
import { editDistance } from '../editDistance.ts';

/** Integer types for activations and weights (Quark QuantType/ExtendedQuantType QInt8, QUInt8, QInt16, QUInt16). */
export const CONFIG_QUANT_TYPES = ['int8', 'uint8', 'int16', 'uint16'] as const;
export type ConfigQuantType = (typeof CONFIG_QUANT_TYPES)[number];

/**
 * Quark's CalibMethod names (quark/onnx/quantization/config/spec.py, LayerwisePercentile included); ORT's
 * CalibrationMethod has the first 3. ConsumerMSE is ours (core/calibrate/search/consumerSearch.ts, after NNCF's range
 * search): float scales only. Sequential is ours too (core/calibrate/run/sequential.ts: Entropy's statistics gathered
 * with everything upstream already quantized): float scales only.
 */
export const CALIBRATION_METHODS = [
  'MinMax',
  'Percentile',
  'Entropy',
  'MinMSE',
  'LayerwisePercentile',
  'ConsumerMSE',
  'Sequential',
] as const;
export type CalibrationMethod = (typeof CALIBRATION_METHODS)[number];

/** Quark's ScaleType.Float32 / ScaleType.PowerOf2. */
export const SCALE_TYPES = ['float32', 'powerOfTwo'] as const;
export type ScaleType = (typeof SCALE_TYPES)[number];

/** Quark's MinMSE modes: search on all calibration data, per batch (most common result), or a percentile cut. */
export const MINMSE_MODES = ['All', 'MostCommon', 'Percentile'] as const;
export type MinMseMode = (typeof MINMSE_MODES)[number];

/** Quark FastFinetune OptimAlgorithm values. */
export const FINETUNE_ALGORITHMS = ['adaround', 'adaquant'] as const;
export type FinetuneAlgorithm = (typeof FINETUNE_ALGORITHMS)[number];

/**
 * Quark's extra_options.FastFinetune (quark.onnx.finetuning TrainParameters), exact keys. Our optimizer works on
 * the exact full-batch gradient of each layer's reconstruction error over every gathered row (its Gram form, see
 * core/recovery/layerProblem.ts), so BatchSize and NumBatches are accepted and kept for Quark compatibility but do
 * not change the result. PositionsPerSample is ours (Quark feeds whole tensors to PyTorch).
 */
export interface FastFinetuneOptions {
  /** 'adaround' learns each weight's rounding (floor or ceil); 'adaquant' learns the weights (and bias). 'adaround'. */
  readonly OptimAlgorithm: FinetuneAlgorithm;
  /** Optimizer steps per layer; 1000 (Quark). */
  readonly NumIterations: number;
  /** Adam learning rate; 0.1 for adaround (Quark's initial_lr), 1e-5 for adaquant (ours: weights move in real units). */
  readonly LearningRate: number;
  /** Quark: samples per batch; 1. Kept, see above. */
  readonly BatchSize: number;
  /** Quark: batches per iteration; 1. Kept, see above. */
  readonly NumBatches: number;
  /** Calibration samples the layer data is gathered from, or null for all; null. */
  readonly DataSize: number | null;
  /** Seed of position sampling; null is a fixed default seed (runs are reproducible either way). */
  readonly FixedSeed: number | null;
  /** Stop a layer early when its loss has not improved for a tenth of the iterations; false. */
  readonly EarlyStop: boolean;
  /** AdaQuant also learns the bias; true. */
  readonly UpdateBias: boolean;
  /** AdaRound's rounding regularization weight λ; 0.01. */
  readonly RegParam: number;
  /** AdaRound's β annealing, from start to end; [20, 2]. */
  readonly BetaRange: readonly [number, number];
  /** Fraction of iterations before the rounding regularization starts; 0.2. */
  readonly WarmStart: number;
  /** Loss-curve points are recorded every LogPeriod iterations; 10 (Quark logs every 100). */
  readonly LogPeriod: number;
  /** Ours: output positions sampled per calibration sample and layer (im2col rows); 128. */
  readonly PositionsPerSample: number;
}

/** Quark subgraphs_to_exclude entry ([starts], [ends]): the nodes between them, both ends included. */
export interface SubgraphExclusion {
  readonly starts: readonly string[];
  readonly ends: readonly string[];
}

/**
 * One entry of ORT's (and Quark's) extra_options.TensorQuantOverrides for a tensor: the integer type that tensor
 * is quantized to instead of the configuration's activation or weight type. Only `quant_type` is modelled (ORT's
 * other override keys, such as a fixed scale, are refused by validation rather than silently ignored).
 */
export interface TensorQuantOverride {
  readonly quant_type: ConfigQuantType;
}

/** Tensor name → its overrides (ORT takes a list per tensor; one entry per tensor here). */
export type TensorQuantOverrides = Readonly<Record<string, readonly TensorQuantOverride[]>>;

/** Quark/ORT extra_options, exact keys. Each line: meaning; default when left out of the input. */
export interface ExtraOptions {
  /** Symmetric activations (zero point 0, or 128/127 for unsigned); false. */
  readonly ActivationSymmetric: boolean;
  /** Symmetric weights; true for signed weight types, false for unsigned (ORT and Quark quantizers). */
  readonly WeightSymmetric: boolean;
  /** Bias as int32 with scale inputScale×weightScale; false: bias quantized like a weight. !enableNpuCnn. */
  readonly Int32Bias: boolean;
  /** Quantize biases at all; true. */
  readonly QuantizeBias: boolean;
  /** One Q/DQ pair per consumer instead of a shared pair; false. */
  readonly DedicatedQDQPair: boolean;
  /**
   * Calibrate and quantize compute inside If/Loop/Scan bodies (ONNX Runtime's EnableSubgraph); false, as there.
   * Off by measurement: on Silero VAD v5 (A8W8, 8 held-out samples) quantizing its bodies raised the speech
   * probability's mean absolute error from 0.00076 to 0.086. False keeps every body float32, as it was written.
   */
  readonly EnableSubgraph: boolean;
  /** Quantize every op type, not only the supported list; false. */
  readonly QuantizeAllOpTypes: boolean;
  /** Quantize latent ops (MaxPool, Transpose, ...) even when their input is not quantized; false. */
  readonly ForceQuantizeNoInputCheck: boolean;
  /** Give a Concat's inputs and output one scale; true with power-of-two scales, else false. */
  readonly AlignConcat: boolean;
  /** Give a Slice's input and output one scale; true with power-of-two scales, else false. */
  readonly AlignSlice: boolean;
  /** Quantize constant inputs of Mul/Add/Sub/Div/Min/Max with the activation type; false. */
  readonly AlignEltwiseQuantType: boolean;
  /** Fold a Relu after Conv into the Conv's output quantization; false. */
  readonly FoldRelu: boolean;
  /** Calibrate on random inputs when no calibration data is given; false. */
  readonly UseRandomData: boolean;
  /** Calibrators make each range symmetric around 0; true for Percentile and power-of-two methods, else false. */
  readonly CalibTensorRangeSymmetric: boolean;
  /** MinMax keeps a moving average of per-batch min/max; false. */
  readonly CalibMovingAverage: boolean;
  /** Smoothing factor of that moving average, in (0, 1]; 0.01. */
  readonly CalibMovingAverageConstant: number;
  /** Percentile kept by Percentile calibration, in percent (ORT: CalibPercentile); 99.999. */
  readonly Percentile: number;
  /** Histogram bins of histogram calibrators; 128 for Entropy, else 2048. */
  readonly NumBins: number;
  /** Entropy's quantized bins; 128. */
  readonly NumQuantizedBins: number;
  /** MinMSE search mode (Quark MinMSEMode; MinMSEModePof2Scale in newer code); 'All'. */
  readonly MinMSEMode: MinMseMode;
  /** ORT MinimumRealRange: least rmax − rmin when computing parameters, or null; null. */
  readonly MinimumRealRange: number | null;
  /** ORT UseQDQContribOps: write Q/DQ in the com.microsoft domain even when ai.onnx could; false. */
  readonly UseQDQContribOps: boolean;
  /** CLE iterations over all pairs (Quark CLESteps); 1. */
  readonly CLESteps: number;
  /** CLE stops early when the scales of a step change the weights by less than this in all (Quark); 2e-7. */
  readonly CLETotalLayerDiffThreshold: number;
  /** CLE counts the first layer's bias in its channel ranges (Quark CLEScaleAppendBias); true. */
  readonly CLEScaleAppendBias: boolean;
  /** SmoothQuant's migration strength α in [0, 1] (Quark SmoothAlpha), used when includeSq is set; 0.5. */
  readonly SmoothAlpha: number;
  /** Fast finetune (AdaRound/AdaQuant) options, used when includeFastFt is set (Quark FastFinetune). */
  readonly FastFinetune: FastFinetuneOptions;
  /**
   * Per-tensor integer types (mixed precision: a few activations or weights at 16 bits in an 8-bit model), by the
   * tensor's name in the graph as quantized; {} (ORT TensorQuantOverrides; Quark reads the same key).
   */
  readonly TensorQuantOverrides: TensorQuantOverrides;
  /**
   * The source model computes in float16: Q/DQ go on its float16 tensors and the parts left float stay float16
   * (Quark QuantizeFP16). A float16 model quantized without this or ConvertFP16ToFP32 is treated as if it were set; false.
   */
  readonly QuantizeFP16: boolean;
  /** With QuantizeFP16: Q/DQ scales of float16 tensors are float32 with Casts around them (Quark); QuantizeFP16. */
  readonly UseFP32Scale: boolean;
  /** Convert a float16 model wholly to float32 before quantizing; the result is a float32 model (Quark); false. */
  readonly ConvertFP16ToFP32: boolean;
}

export interface QuantConfig {
  /** activation_type. */
  readonly activationType: ConfigQuantType;
  /** weight_type. */
  readonly weightType: ConfigQuantType;
  /** calibrate_method, read together with scaleType (see quarkCalibrateMethod). */
  readonly calibrationMethod: CalibrationMethod;
  /** Quark ScaleType of activations and weights. */
  readonly scaleType: ScaleType;
  /** per_channel: per-channel weight scales. */
  readonly perChannel: boolean;
  /** reduce_range: 7-bit-like ranges for weights. */
  readonly reduceRange: boolean;
  /**
   * 7-bit codes only for the weight channels whose 8-bit codes could saturate onnxruntime's x86 CPU int8
   * kernels without VNNI (quantize/cpuKernelSafety.ts); every other weight keeps 8 bits. Ours.
   */
  readonly saturationSafeWeights: boolean;
  /**
   * Fold Conv → Mul/Add by per-channel constants into the Conv before quantizing (prepare/foldConvAffine.ts,
   * onnxruntime's ConvMulFusion/ConvAddFusion). Ours; see its default's measurement in bench/README.md.
   */
  readonly foldConvAffine: boolean;
  /** op_types_to_quantize; empty means every supported op type. */
  readonly opTypesToQuantize: readonly string[];
  /** nodes_to_exclude (node names). */
  readonly nodesToExclude: readonly string[];
  /** Op types left in float (Quark QConfig layer_type_config with a None config). */
  readonly opTypesToExclude: readonly string[];
  /** subgraphs_to_exclude. */
  readonly subgraphsToExclude: readonly SubgraphExclusion[];
  /**
   * Of a float16 model, the subgraphs converted to float32 before quantizing (the guide's Shapeshifter pass
   * convert_fp16_to_fp32, `subgraphs_to_include`); the rest keeps float16. Empty: the QuantizeFP16 options decide.
   */
  readonly fp16SubgraphsToFp32: readonly SubgraphExclusion[];
  /** enable_npu_cnn: apply the Ryzen AI NPU CNN constraints. */
  readonly enableNpuCnn: boolean;
  /**
   * enable_npu_transformer: quantize attention blocks as the NPU runs them: functions written out as several
   * element-wise nodes (LayerNorm, GELU, HardSwish, Swish) with Q/DQ at their input and output only
   * (quantize/fusedFunctions.ts), Softmax on its known [0, 1] output range.
   */
  readonly enableNpuTransformer: boolean;
  /**
   * include_sq: SmoothQuant before calibration (Xiao et al. 2023): each MatMul/Gemm input channel divided by
   * s = max|x|^α / max|w|^(1−α) and its weight row multiplied by it, folded into the LayerNorm (or scale)
   * before; the float outputs do not change (extraOptions.SmoothAlpha is α).
   */
  readonly includeSq: boolean;
  /** include_cle: cross-layer equalization before quantization. */
  readonly includeCle: boolean;
  /** include_fast_ft: AdaRound or AdaQuant after quantization (extraOptions.FastFinetune). */
  readonly includeFastFt: boolean;
  /**
   * Empirical bias correction after quantization (Nagel et al. 2019, §4.2): each layer's mean output shift on
   * the calibration data folded into its bias. Ours: Quark's ONNX quantizer has no such switch.
   */
  readonly includeBiasCorrection: boolean;
  readonly extraOptions: ExtraOptions;
}

/** What validateConfig accepts: any subset of the fields (and of extraOptions). */
export type QuantConfigInput = Partial<Omit<QuantConfig, 'extraOptions'>> & {
  extraOptions?: Partial<Omit<ExtraOptions, 'FastFinetune'>> & { FastFinetune?: Partial<FastFinetuneOptions> };
};

/** A configuration that cannot be used; `field` is the path of the offending field, e.g. config.activationType. */
export class ConfigError extends StudioError {
  override readonly name = 'ConfigError';
  constructor(
    readonly field: string,
    detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

/** Quark's name for each top-level field, for messages and documentation. */
export const QUARK_PARAMETER_NAMES: Readonly<Record<Exclude<keyof QuantConfig, 'extraOptions'>, string>> = {
  activationType: 'activation_type',
  weightType: 'weight_type',
  calibrationMethod: 'calibrate_method',
  scaleType: 'scale_type',
  perChannel: 'per_channel',
  reduceRange: 'reduce_range',
  saturationSafeWeights: 'saturation_safe_weights (ours)',
  foldConvAffine: 'fold_conv_affine (ours)',
  opTypesToQuantize: 'op_types_to_quantize',
  nodesToExclude: 'nodes_to_exclude',
  opTypesToExclude: 'layer_type_config',
  subgraphsToExclude: 'subgraphs_to_exclude',
  fp16SubgraphsToFp32: 'subgraphs_to_include (Shapeshifter convert_fp16_to_fp32)',
  enableNpuCnn: 'enable_npu_cnn',
  enableNpuTransformer: 'enable_npu_transformer',
  includeSq: 'include_sq',
  includeCle: 'include_cle',
  includeFastFt: 'include_fast_ft',
  includeBiasCorrection: 'include_bias_correction (ours)',
};

/** Quark's legacy calibrate_method enum for a method and scale type (config/maps.py). */
export function quarkCalibrateMethod(config: Pick<QuantConfig, 'calibrationMethod' | 'scaleType'>): string {
  const { calibrationMethod: m, scaleType: s } = config;
  if (s === 'powerOfTwo') return m === 'MinMax' ? 'PowerOfTwoMethod.NonOverflow' : `PowerOfTwoMethod.${m}`;
  return m === 'MinMSE' ? 'ExtendedCalibrationMethod.MinMSE' : `CalibrationMethod.${m}`;
}

// ---- validation -------------------------------------------------------------------------------------------

function show(v: unknown): string {
  if (v === undefined) return 'undefined';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' && v !== null ? 'an object' : JSON.stringify(v);
}

type Check<T> = (value: unknown, field: string) => T;

const bool: Check<boolean> = (v, f) => {
  if (typeof v !== 'boolean') throw new ConfigError(f, `expected true or false, got ${show(v)}`);
  return v;
};

const oneOf =
  <T extends string>(options: readonly T[]): Check<T> =>
  (v, f) => {
    if (typeof v === 'string' && (options as readonly string[]).includes(v)) return v as T;
    throw new ConfigError(f, `expected one of ${options.join(', ')}, got ${show(v)}`);
  };

const numberIn =
  (lo: number, hi: number, opts: { loOpen?: boolean; integer?: boolean } = {}): Check<number> =>
  (v, f) => {
    const ok =
      typeof v === 'number' &&
      Number.isFinite(v) &&
      (opts.loOpen ? v > lo : v >= lo) &&
      v <= hi &&
      (!opts.integer || Number.isInteger(v));
    if (ok) return v as number;
    const kind = opts.integer ? 'an integer' : 'a number';
    throw new ConfigError(f, `expected ${kind} in ${opts.loOpen ? '(' : '['}${lo}, ${hi}], got ${show(v)}`);
  };

const nullOr =
  <T>(check: Check<T>): Check<T | null> =>
  (v, f) =>
    v === null ? null : check(v, f);

const stringList: Check<string[]> = (v, f) => {
  if (!Array.isArray(v)) throw new ConfigError(f, `expected an array of names, got ${show(v)}`);
  return v.map((s, i) => {
    if (typeof s === 'string' && s !== '') return s;
    throw new ConfigError(`${f}[${i}]`, `expected a non-empty string, got ${show(s)}`);
  });
};

function objectWithKeys(v: unknown, f: string, known: readonly string[]): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new ConfigError(f, `expected an object, got ${show(v)}`);
  }
  for (const key of Object.keys(v)) {
    if (known.includes(key)) continue;
    const fromQuark = Object.entries(QUARK_PARAMETER_NAMES).find(([, quark]) => quark === key)?.[0];
    const near = known.find((k) => k.toLowerCase() === key.toLowerCase() || editDistance(k, key) <= 2);
    const hint = fromQuark ? ` (Quark's ${key} is ${fromQuark} here)` : near ? ` (did you mean ${near}?)` : '';
    throw new ConfigError(`${f}.${key}`, `unknown field${hint}`);
  }
  return v as Record<string, unknown>;
}

const subgraphList: Check<SubgraphExclusion[]> = (v, f) => {
  if (!Array.isArray(v)) throw new ConfigError(f, `expected an array of {starts, ends}, got ${show(v)}`);
  return v.map((item, i) => {
    const o = objectWithKeys(item, `${f}[${i}]`, ['starts', 'ends']);
    const starts = stringList(o.starts, `${f}[${i}].starts`);
    const ends = stringList(o.ends, `${f}[${i}].ends`);
    if (starts.length === 0) throw new ConfigError(`${f}[${i}].starts`, 'expected at least one node name');
    if (ends.length === 0) throw new ConfigError(`${f}[${i}].ends`, 'expected at least one node name');
    return { starts, ends };
  });
};

type TopFields = Omit<QuantConfig, 'extraOptions'>;

const TOP_CHECKS: { readonly [K in keyof TopFields]: readonly [Check<TopFields[K]>, TopFields[K]] } = {
  activationType: [oneOf(CONFIG_QUANT_TYPES), 'int8'],
  weightType: [oneOf(CONFIG_QUANT_TYPES), 'int8'],
  calibrationMethod: [oneOf(CALIBRATION_METHODS), 'MinMax'],
  scaleType: [oneOf(SCALE_TYPES), 'float32'],
  perChannel: [bool, false],
  reduceRange: [bool, false],
  saturationSafeWeights: [bool, false],
  foldConvAffine: [bool, true],
  opTypesToQuantize: [stringList, []],
  nodesToExclude: [stringList, []],
  opTypesToExclude: [stringList, []],
  subgraphsToExclude: [subgraphList, []],
  fp16SubgraphsToFp32: [subgraphList, []],
  enableNpuCnn: [bool, false],
  enableNpuTransformer: [bool, false],
  includeSq: [bool, false],
  // Quark's QuantizationConfig defaults include_cle to true; plain ORT has no CLE. The Quark presets set it.
  includeCle: [bool, false],
  includeFastFt: [bool, false],
  includeBiasCorrection: [bool, false],
};

/** Defaults of the extra options that depend on the top-level fields (Quark docs and quantizer code). */
function extraDefaults(top: TopFields): ExtraOptions {
  const pof2 = top.scaleType === 'powerOfTwo';
  return {
    ActivationSymmetric: false,
    WeightSymmetric: QUANT_TYPES[top.weightType].signed,
    Int32Bias: !top.enableNpuCnn,
    QuantizeBias: true,
    DedicatedQDQPair: false,
    EnableSubgraph: false,
    QuantizeAllOpTypes: false,
    ForceQuantizeNoInputCheck: false,
    AlignConcat: pof2,
    AlignSlice: pof2,
    AlignEltwiseQuantType: false,
    FoldRelu: false,
    UseRandomData: false,
    // Quark calibrators._CALIB_METHOD_DEFAULTS and ORT create_calibrator: Percentile and pof2 default symmetric.
    CalibTensorRangeSymmetric:
      pof2 || top.calibrationMethod === 'Percentile' || top.calibrationMethod === 'LayerwisePercentile',
    CalibMovingAverage: false,
    CalibMovingAverageConstant: 0.01,
    Percentile: 99.999,
    // ORT and Quark default Entropy to 128 bins, as many as its 128 quantized bins: then the search has one
    // candidate, the whole histogram, and Entropy returns MinMax's range (docs/NOTES.md). TensorRT's 2048 lets it search.
    NumBins: 2048,
    NumQuantizedBins: 128,
    MinMSEMode: 'All',
    MinimumRealRange: null,
    UseQDQContribOps: false,
    CLESteps: 1,
    CLETotalLayerDiffThreshold: 2e-7,
    CLEScaleAppendBias: true,
    SmoothAlpha: 0.5,
    FastFinetune: fastFinetuneDefaults('adaround'),
    TensorQuantOverrides: {},
    QuantizeFP16: false,
    UseFP32Scale: false,
    ConvertFP16ToFP32: false,
  };
}

/** The Adam learning rate an algorithm takes when the config names none: 0.1 AdaRound (Quark's initial_lr), 1e-5 AdaQuant. */
export function defaultFinetuneLearningRate(algorithm: FinetuneAlgorithm): number {
  return algorithm === 'adaround' ? 0.1 : 1e-5;
}

function fastFinetuneDefaults(algorithm: FinetuneAlgorithm): FastFinetuneOptions {
  return {
    OptimAlgorithm: algorithm,
    NumIterations: 1000,
    LearningRate: defaultFinetuneLearningRate(algorithm),
    BatchSize: 1,
    NumBatches: 1,
    DataSize: null,
    FixedSeed: null,
    EarlyStop: false,
    UpdateBias: true,
    RegParam: 0.01,
    BetaRange: [20, 2],
    WarmStart: 0.2,
    LogPeriod: 10,
    PositionsPerSample: 128,
  };
}

const betaRange: Check<readonly [number, number]> = (v, f) => {
  if (!Array.isArray(v) || v.length !== 2) throw new ConfigError(f, `expected [start, end], got ${show(v)}`);
  const positive = numberIn(0, 1e6, { loOpen: true });
  return [positive(v[0], `${f}[0]`), positive(v[1], `${f}[1]`)];
};

const FAST_FINETUNE_CHECKS: { readonly [K in keyof FastFinetuneOptions]: Check<FastFinetuneOptions[K]> } = {
  OptimAlgorithm: oneOf(FINETUNE_ALGORITHMS),
  NumIterations: numberIn(1, 1e7, { integer: true }),
  LearningRate: numberIn(0, 1e3, { loOpen: true }),
  BatchSize: numberIn(1, 1e6, { integer: true }),
  NumBatches: numberIn(1, 1e6, { integer: true }),
  DataSize: nullOr(numberIn(1, 1e9, { integer: true })),
  FixedSeed: nullOr(numberIn(0, 2 ** 32 - 1, { integer: true })),
  EarlyStop: bool,
  UpdateBias: bool,
  RegParam: numberIn(0, 1e6),
  BetaRange: betaRange,
  WarmStart: numberIn(0, 1),
  LogPeriod: numberIn(1, 1e7, { integer: true }),
  PositionsPerSample: numberIn(1, 1 << 20, { integer: true }),
};

const fastFinetune: Check<FastFinetuneOptions> = (v, f) => {
  const o = objectWithKeys(v, f, Object.keys(FAST_FINETUNE_CHECKS));
  const algorithm =
    o.OptimAlgorithm === undefined
      ? 'adaround'
      : FAST_FINETUNE_CHECKS.OptimAlgorithm(o.OptimAlgorithm, `${f}.OptimAlgorithm`);
  const out = fastFinetuneDefaults(algorithm) as unknown as Record<string, unknown>;
  for (const [key, check] of Object.entries(FAST_FINETUNE_CHECKS) as [string, Check<unknown>][]) {
    if (o[key] !== undefined) out[key] = check(o[key], `${f}.${key}`);
  }
  return out as unknown as FastFinetuneOptions;
};

const tensorQuantOverrides: Check<TensorQuantOverrides> = (v, f) => {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new ConfigError(f, `expected an object of tensor name → [{quant_type}], got ${show(v)}`);
  const out: Record<string, TensorQuantOverride[]> = {};
  for (const [tensor, list] of Object.entries(v)) {
    const field = `${f}[${JSON.stringify(tensor)}]`;
    if (tensor === '') throw new ConfigError(field, 'expected a tensor name');
    if (!Array.isArray(list) || list.length !== 1)
      throw new ConfigError(field, `expected a list of one override, got ${show(list)}`);
    const o = objectWithKeys(list[0], `${field}[0]`, ['quant_type']);
    out[tensor] = [{ quant_type: oneOf(CONFIG_QUANT_TYPES)(o.quant_type, `${field}[0].quant_type`) }];
  }
  return out;
};

const EXTRA_CHECKS: { readonly [K in keyof ExtraOptions]: Check<ExtraOptions[K]> } = {
  ActivationSymmetric: bool,
  WeightSymmetric: bool,
  Int32Bias: bool,
  QuantizeBias: bool,
  DedicatedQDQPair: bool,
  EnableSubgraph: bool,
  QuantizeAllOpTypes: bool,
  ForceQuantizeNoInputCheck: bool,
  AlignConcat: bool,
  AlignSlice: bool,
  AlignEltwiseQuantType: bool,
  FoldRelu: bool,
  UseRandomData: bool,
  CalibTensorRangeSymmetric: bool,
  CalibMovingAverage: bool,
  CalibMovingAverageConstant: numberIn(0, 1, { loOpen: true }),
  Percentile: numberIn(0, 100, { loOpen: true }),
  NumBins: numberIn(1, 1 << 24, { integer: true }),
  NumQuantizedBins: numberIn(1, 1 << 24, { integer: true }),
  MinMSEMode: oneOf(MINMSE_MODES),
  MinimumRealRange: nullOr(numberIn(0, Number.MAX_VALUE, { loOpen: true })),
  UseQDQContribOps: bool,
  CLESteps: numberIn(1, 1000, { integer: true }),
  CLETotalLayerDiffThreshold: numberIn(0, Number.MAX_VALUE),
  CLEScaleAppendBias: bool,
  SmoothAlpha: numberIn(0, 1),
  FastFinetune: fastFinetune,
  TensorQuantOverrides: tensorQuantOverrides,
  QuantizeFP16: bool,
  UseFP32Scale: bool,
  ConvertFP16ToFP32: bool,
};

/** Check a parsed JSON value and complete it with the references' defaults; throws ConfigError on the first fault. */
export function validateConfig(json: unknown): QuantConfig {
  const input = objectWithKeys(json, 'config', [...Object.keys(TOP_CHECKS), 'extraOptions']);
  const top = {} as Record<string, unknown>;
  for (const [key, [check, fallback]] of Object.entries(TOP_CHECKS) as [string, [Check<unknown>, unknown]][]) {
    top[key] = input[key] === undefined ? structuredClone(fallback) : check(input[key], `config.${key}`);
  }
  const topFields = top as unknown as TopFields;
  if (topFields.scaleType === 'powerOfTwo' && !['MinMax', 'MinMSE'].includes(topFields.calibrationMethod)) {
    throw new ConfigError(
      'config.calibrationMethod',
      `power-of-two scales take MinMax (Quark NonOverflow) or MinMSE, got ${show(topFields.calibrationMethod)}`,
    );
  }
  const rawExtra =
    input.extraOptions === undefined
      ? {}
      : objectWithKeys(input.extraOptions, 'config.extraOptions', Object.keys(EXTRA_CHECKS));
  const extra = extraDefaults(topFields) as unknown as Record<string, unknown>;
  for (const [key, check] of Object.entries(EXTRA_CHECKS) as [string, Check<unknown>][]) {
    if (rawExtra[key] !== undefined) extra[key] = check(rawExtra[key], `config.extraOptions.${key}`);
  }
  // Quark: UseFP32Scale defaults to QuantizeFP16 (quantize_static: extra_options.get("UseFP32Scale", quantize_fp16)).
  if (rawExtra.UseFP32Scale === undefined) extra.UseFP32Scale = extra.QuantizeFP16;
  const extraOptions = extra as unknown as ExtraOptions;
  if (extraOptions.NumQuantizedBins > extraOptions.NumBins) {
    throw new ConfigError(
      'config.extraOptions.NumQuantizedBins',
      `expected at most NumBins (${extraOptions.NumBins}), got ${extraOptions.NumQuantizedBins}`,
    );
  }
  return { ...topFields, extraOptions };
}

/** The configuration as JSON text, every field present, in a stable order. */
export function configToJSON(config: QuantConfig): string {
  return JSON.stringify(configToPlainJson(config), null, 2);
}

/** The configuration as a plain JSON value (a fresh copy: every field present, in configToJSON's order), e.g. for a report. */
export function configToPlainJson(config: QuantConfig): Record<string, unknown> {
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(TOP_CHECKS)) ordered[key] = config[key as keyof TopFields];
  ordered.extraOptions = Object.fromEntries(
    Object.keys(EXTRA_CHECKS).map((k) => [k, config.extraOptions[k as keyof ExtraOptions]]),
  );
  return JSON.parse(JSON.stringify(ordered)) as Record<string, unknown>;
}

/**
 * The configuration with some options changed, validated again (a bad value is a ConfigError naming its field).
 * Top-level fields replace the configuration's; `extraOptions` and its `FastFinetune` merge field by field. A field
 * given as `undefined` goes back to its default as validateConfig derives it (e.g. a FastFinetune LearningRate to
 * its algorithm's, CalibTensorRangeSymmetric to the method's); `FastFinetune: undefined` resets the whole block.
 */
export function withOptions(config: QuantConfig, patch: QuantConfigInput): QuantConfig {
  type Json = Record<string, unknown>;
  const json = configToPlainJson(config) as Json & { extraOptions: Json & { FastFinetune: Json } };
  const { extraOptions, ...top } = patch;
  assignFields(json, top);
  if (extraOptions !== undefined) {
    const { FastFinetune, ...extra } = extraOptions;
    assignFields(json.extraOptions, extra);
    if ('FastFinetune' in extraOptions) {
      if (FastFinetune === undefined) delete (json.extraOptions as Json).FastFinetune;
      else assignFields(json.extraOptions.FastFinetune, FastFinetune);
    }
  }
  return validateConfig(json);
}

/** Each field of `patch` set on `target`; a field given as `undefined` removed (so validateConfig defaults it). */
function assignFields(target: Record<string, unknown>, patch: object): void {
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete target[key];
    else target[key] = value;
  }
}

/** Parse and validate JSON text; a syntax error is a ConfigError on field `config`. */
export function configFromJSON(text: string): QuantConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError('config', `not valid JSON (${(e as Error).message})`);
  }
  return validateConfig(parsed);
}
