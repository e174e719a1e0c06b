/**
 * For every op Quant Studio can carry across opsets: what each version boundary of OP_HISTORY means for a
 * model that crosses it. Each entry was checked against the op's two schemas in ONNX's docs/Changelog.md
 * (the text quoted or summarized in `why`), and, for the rewrites, against ONNX's version_converter
 * adapters and onnxruntime's kernels where the spec leaves behaviour to the runtime (Resize-10).
 *
 * A boundary without an entry blocks the upgrade (the op's meaning may have changed and nobody checked);
 * an op absent from this table is fine only if no version of it is crossed. Opsets above 21 are not
 * covered yet: MAX_TARGET_OPSET is the highest target accepted.
 */
import { coercedAxisToSingleAxis } from './adapters/softmax.ts';
import {
  axesToInput,
  clipToInputs,
  padToInputs,
  sliceAttributesToInputs,
  splitNumOutputs,
  splitToInput,
  topKToInput,
} from './adapters/attributesToInputs.ts';
import {
  batchNorm14,
  batchNorm6,
  batchNorm7,
  batchNorm9,
  castToEnum,
  concatAxisRequired,
  convTransposePadding,
  dropConsumedInputs,
  gemmDropBroadcast,
  legacyBroadcast,
  reshapeShapeToInput,
  roiAlignOutputHalfPixel,
  scatterToScatterElements,
  seluDefaults,
} from './adapters/legacy.ts';
import { resize10To11, resize13, upsampleScalesToInput, upsampleToResize } from './adapters/resize.ts';
import { dropoutAttributes, dropoutMask } from './adapters/dropout.ts';
import { adapt, refuse, same, type Step } from './adapters/types.ts';

/** The highest opset the table covers. */
export const MAX_TARGET_OPSET = 21;

// Reasons shared by many entries.
const types = (list = 'types') => same(`only ${list} were added to the type constraints`);
const TYPES = types();
const BF16 = types('bfloat16');
const DOC = same('documentation only: wording, examples, defaults written out');
const NEG_AXIS = same('negative axis values became allowed; the meaning of the others is unchanged');
const CONSUMED = adapt(
  dropConsumedInputs,
  'consumed_inputs dropped',
  'consumed_inputs ("legacy optimization attribute") was removed',
);
const BROADCAST = adapt(
  legacyBroadcast,
  'broadcast/axis → NumPy broadcasting',
  'the broadcast/axis attributes were replaced by NumPy (multidirectional) broadcasting',
);
const VARIADIC_BROADCAST = same(
  'NumPy broadcasting added; inputs of equal shape (the only ones allowed before) give the same result',
);
const AXES = (at: number) =>
  adapt(axesToInput, 'axes attribute → input', `axes moved from an attribute to an optional int64 input at ${at}`);
const SOFTMAX = adapt(
  coercedAxisToSingleAxis,
  'rewritten for single-axis semantics',
  'axis changed meaning (coerce to 2-D at axis → one axis) and its default (1 → −1)',
);

const unary = { 6: CONSUMED, 13: BF16 };
const binaryArith = { 6: CONSUMED, 7: BROADCAST, 13: BF16, 14: types('8- and 16-bit integer types') };
const comparison = { 7: BROADCAST, 9: TYPES, 13: BF16 };
const logical = { 7: BROADCAST };
const variadic = { 6: CONSUMED, 8: VARIADIC_BROADCAST, 12: TYPES, 13: BF16 };
const reduce18 = { 11: NEG_AXIS, 13: BF16, 18: AXES(18) };
const reduceMinMax = { 11: NEG_AXIS, 12: types('int8/uint8'), 13: BF16, 18: AXES(18), 20: types('bool') };
const argReduce = { 11: NEG_AXIS, 12: same('select_last_index added, default 0 = first index as before'), 13: BF16 };
const softmaxFamily = { 11: NEG_AXIS, 13: SOFTMAX };
const laterTypes = { 13: BF16, 19: types('float8'), 21: types('int4/uint4') };
const control = { 11: DOC, 13: types('sequence'), 16: types('optional'), 19: types('float8'), 21: types('int4/uint4') };
const qdq = {
  13: same('axis added for 1-D (per-axis) scales; scalar scales behave as before'),
  19: same('saturate added, used only for float8 outputs; float16/bfloat16 scales allowed'),
  21: same('block_size added (default 0: no blocking); 4- and 16-bit types added'),
};

/** Per op: version boundary → what crossing it means. */
export const OPSET_STEPS: Readonly<Record<string, Readonly<Record<number, Step>>>> = {
  // Element-wise math.
  Abs: unary,
  Ceil: { 6: CONSUMED, 13: same('bfloat16 added; integral, ±0, NaN and ∞ inputs documented as returned unchanged') },
  Floor: { 6: CONSUMED, 13: same('bfloat16 added; integral, ±0, NaN and ∞ inputs documented as returned unchanged') },
  Exp: unary,
  Log: unary,
  Neg: unary,
  Reciprocal: unary,
  Sigmoid: unary,
  Sqrt: unary,
  Tanh: unary,
  Relu: { 6: CONSUMED, 13: BF16, 14: types('signed integer') },
  Elu: { 6: CONSUMED },
  HardSigmoid: { 6: CONSUMED },
  LeakyRelu: { 6: CONSUMED, 16: BF16 },
  Selu: {
    6: adapt(
      seluDefaults,
      'old alpha/gamma defaults written out',
      'defaults changed (alpha 1.6732 → 1.67326…, gamma 1.0507 → 1.05070…) and consumed_inputs was removed',
    ),
  },
  PRelu: {
    6: CONSUMED,
    7: same('slope became unidirectionally broadcast, which covers the size-1 slope shared across channels'),
    9: TYPES,
    16: BF16,
  },
  Erf: { 13: same('bfloat16 added; integer types removed', true) },
  Sign: { 13: BF16 },
  Mod: { 13: same('documentation of fmod and special values; bfloat16 added') },
  IsNaN: { 13: BF16, 20: types('float8') },
  IsInf: { 20: types('float16/bfloat16/float8') },
  Add: binaryArith,
  Sub: binaryArith,
  Mul: binaryArith,
  Div: binaryArith,
  Pow: { 7: BROADCAST, 12: same('the exponent got its own type constraint (integers allowed)'), 13: BF16, 15: BF16 },
  Equal: { 7: BROADCAST, 11: TYPES, 13: BF16, 19: types('string') },
  Less: comparison,
  Greater: comparison,
  LessOrEqual: { 16: BF16 },
  GreaterOrEqual: { 16: BF16 },
  And: logical,
  Or: logical,
  Xor: logical,
  Max: variadic,
  Min: variadic,
  Sum: { 6: CONSUMED, 8: VARIADIC_BROADCAST, 13: BF16 },
  Mean: { 6: CONSUMED, 8: VARIADIC_BROADCAST, 13: BF16 },
  Where: { 16: BF16 },
  Clip: {
    6: CONSUMED,
    11: adapt(
      clipToInputs,
      'min/max attributes → inputs',
      'min and max moved from attributes to optional scalar inputs',
    ),
    12: types('integer'),
    13: same('bfloat16 added; min > max documented as Min(max, Max(x, min))'),
  },

  // Convolution, pooling, normalization.
  Conv: { 11: same('documentation: SAME padding output size and stride/dilation defaults written out') },
  ConvTranspose: {
    11: adapt(
      convTransposePadding,
      'checked: no SAME auto_pad',
      'the SAME_UPPER/SAME_LOWER padding split was corrected',
    ),
  },
  MaxPool: {
    8: same('storage_order and an optional Indices output were added'),
    10: same('ceil_mode (default 0) and dilations (default 1) were added'),
    11: DOC,
    12: types('int8/uint8'),
  },
  AveragePool: {
    7: same('count_include_pad added, default 0 = padding excluded as before'),
    10: same('ceil_mode added, default 0 = floor as before'),
    11: same('documentation of output-shape formulas (onnx version_converter: compatible)'),
    19: same('dilations added, default 1'),
  },
  LpPool: {
    2: refuse('p changed from float to int'),
    11: DOC,
    18: same('ceil_mode (default 0) and dilations (default 1) were added'),
  },
  GlobalLpPool: { 2: refuse('p changed from float to int') },
  BatchNormalization: {
    6: adapt(batchNorm6, 'consumed_inputs dropped', 'consumed_inputs was removed'),
    7: adapt(batchNorm7, 'is_test dropped', 'is_test was removed'),
    9: adapt(batchNorm9, 'spatial dropped', 'spatial was removed (per-channel statistics only)'),
    14: adapt(
      batchNorm14,
      'checked: inference form',
      'training_mode added (default 0); extra outputs only in training mode',
    ),
    15: same('scale/bias and mean/var got separate type constraints'),
  },
  InstanceNormalization: { 6: CONSUMED },
  GroupNormalization: { 21: refuse('scale and bias changed from per-group to per-channel') },
  LRN: { 13: BF16 },
  MeanVarianceNormalization: { 13: BF16 },
  Gemm: {
    6: same('documentation: "C can be inplace" removed'),
    7: adapt(
      gemmDropBroadcast,
      'broadcast dropped',
      'broadcast was removed; C is unidirectionally broadcast to (M, N)',
    ),
    9: TYPES,
    11: same('C became optional'),
    13: BF16,
  },
  MatMul: { 9: TYPES, 13: BF16 },

  // Shape and data movement.
  Reshape: {
    5: adapt(reshapeShapeToInput, 'shape attribute → input', 'shape moved from an attribute to an int64 input'),
    13: BF16,
    14: same('allowzero added, default 0 = zeros copy the input dimension as before'),
    19: types('float8'),
    21: types('int4/uint4'),
  },
  Flatten: { 9: TYPES, 11: NEG_AXIS, 13: BF16, 21: types('float8/int4') },
  Transpose: { 13: BF16, 21: types('float8/int4') },
  Squeeze: { 11: NEG_AXIS, 13: AXES(13), 21: types('float8/int4') },
  Unsqueeze: { 11: NEG_AXIS, 13: AXES(13), 21: types('float8/int4') },
  Concat: {
    4: adapt(concatAxisRequired, 'axis written out', 'axis became required (Concat-1 defaulted it to 1)'),
    11: NEG_AXIS,
    13: BF16,
  },
  Split: {
    2: refuse('Split-1 took the sizes as an optional input and had no default axis'),
    11: NEG_AXIS,
    13: adapt(splitToInput, 'split attribute → input', 'split moved from an attribute to an optional int64 input'),
    18: adapt(splitNumOutputs, 'num_outputs written out', 'without a split input, num_outputs is required'),
  },
  Slice: {
    10: adapt(
      sliceAttributesToInputs,
      'starts/ends/axes attributes → inputs',
      'starts, ends and axes moved from attributes to int64 inputs; steps added',
    ),
    11: NEG_AXIS,
    13: same('bfloat16 added; clamping of starts/ends spelled out'),
  },
  Gather: { 11: same('negative indices documented'), 13: BF16 },
  GatherElements: { 13: BF16 },
  GatherND: { 12: same('batch_dims added, default 0'), 13: BF16 },
  Scatter: {
    11: adapt(
      scatterToScatterElements,
      '→ ScatterElements',
      'deprecated for ScatterElements, "which provides the same functionality"',
    ),
  },
  ScatterElements: { 13: BF16, 16: same('reduction added, default none'), 18: same('max/min reductions added') },
  ScatterND: { 13: BF16, 16: same('reduction added, default none'), 18: same('max/min reductions added') },
  Expand: { 13: BF16 },
  Tile: { 6: refuse('Tile-1 took tiles and axis inputs; Tile-6 takes repeats per dimension'), 13: BF16 },
  Pad: {
    2: refuse('Pad-1 "paddings" layout is described inconsistently (text and example disagree)'),
    11: adapt(padToInputs, 'pads/value attributes → inputs', 'pads and value moved from attributes to inputs'),
    13: types('bfloat16, string and bool'),
    18: same('optional axes input added (absent: all axes)'),
    19: same("'wrap' mode added"),
    21: types('float8/int4'),
  },
  DepthToSpace: { 11: same('mode added, default DCR = the Depth-Column-Row order of DepthToSpace-1'), 13: BF16 },
  SpaceToDepth: { 13: BF16 },
  Shape: {
    13: BF16,
    15: same('start/end added; absent, the whole shape as before'),
    19: types('float8'),
    21: types('int4/uint4'),
  },
  Size: laterTypes,
  Identity: { 13: BF16, 14: types('sequence'), 16: types('optional'), 19: types('float8'), 21: types('int4/uint4') },
  Cast: {
    6: adapt(castToEnum, 'to: name → type code', "'to' changed from a type name (string) to a type code (int)"),
    9: same('casting from/to string added'),
    13: same('bfloat16 added; numeric conversion rules written down'),
    19: same('float8 types and saturate (float8 only) added'),
    21: types('int4/uint4'),
  },
  CastLike: { 19: types('float8'), 21: types('int4/uint4') },
  Constant: {
    9: TYPES,
    11: same('sparse_value added'),
    12: same('value_float(s)/value_int(s)/value_string(s) added'),
    13: BF16,
    19: types('float8'),
    21: types('int4/uint4'),
  },
  ConstantOfShape: { 20: types('bfloat16/float8'), 21: types('int4/uint4') },
  NonZero: { 13: BF16 },
  CumSum: { 14: types('numeric') },
  OneHot: { 11: refuse('negative indices changed meaning (all off values before, counted from the end after)') },
  Compress: { 11: NEG_AXIS },
  MaxUnpool: { 11: DOC },
  RoiAlign: {
    16: adapt(
      roiAlignOutputHalfPixel,
      "coordinate_transformation_mode='output_half_pixel' written out",
      'coordinate_transformation_mode added with default half_pixel; output_half_pixel is the old behaviour',
    ),
  },

  // Normalizing and selecting.
  Softmax: softmaxFamily,
  LogSoftmax: softmaxFamily,
  Hardmax: softmaxFamily,
  ReduceSum: { 11: NEG_AXIS, 13: AXES(13) },
  ReduceMean: reduce18,
  ReduceProd: reduce18,
  ReduceL1: reduce18,
  ReduceL2: reduce18,
  ReduceLogSum: reduce18,
  ReduceLogSumExp: reduce18,
  ReduceSumSquare: reduce18,
  ReduceMax: reduceMinMax,
  ReduceMin: reduceMinMax,
  ArgMax: argReduce,
  ArgMin: argReduce,
  TopK: {
    10: adapt(topKToInput, 'k attribute → input', 'k moved from an attribute to an int64 input'),
    11: same('largest and sorted added, defaults 1 = the old behaviour; negative axis allowed'),
  },
  NonMaxSuppression: { 11: same('documentation: boxes with IoU strictly greater than the threshold are suppressed') },
  Dropout: {
    6: adapt(dropoutAttributes, 'consumed_inputs dropped', 'consumed_inputs was removed'),
    7: adapt(
      dropoutAttributes,
      'is_test dropped (inference)',
      'is_test was removed; inference passes the data through',
    ),
    10: adapt(dropoutMask, 'checked: mask unread', 'the mask output type changed from T to bool'),
    12: adapt(dropoutAttributes, 'ratio dropped (inference)', 'ratio moved to an input, ignored unless training_mode'),
    13: adapt(dropoutMask, 'checked: mask unread', 'bfloat16 added'),
  },

  // Resampling.
  Upsample: {
    7: refuse('Upsample-1 was experimental (width_scale/height_scale, bilinear)'),
    9: adapt(upsampleScalesToInput, 'scales attribute → input', 'scales moved from an attribute to a float input'),
    10: adapt(upsampleToResize, '→ Resize', 'deprecated; Resize-10 has the same inputs, modes and output size'),
  },
  Resize: {
    11: adapt(
      resize10To11,
      'asymmetric/floor written out',
      'roi input, coordinate_transformation_mode (default half_pixel) and nearest_mode (default round_prefer_floor) added; Resize-10 was asymmetric',
    ),
    13: adapt(
      resize13,
      'checked: no tf_half_pixel_for_nn',
      'tf_half_pixel_for_nn removed; roi and scales became optional',
    ),
    18: same('antialias (0), axes (all) and keep_aspect_ratio_policy (stretch) added with defaults = old behaviour'),
    19: same("coordinate_transformation_mode 'half_pixel_symmetric' added"),
  },

  // Control flow: subgraphs are upgraded with the same table.
  If: control,
  Loop: control,
  Scan: {
    9: refuse('Scan-8 had a batch axis and sequence_lens; Scan-9 does not'),
    11: NEG_AXIS,
    16: BF16,
    19: types('float8'),
    21: types('int4/uint4'),
  },

  // Quantized ops (a model may already hold some).
  QuantizeLinear: qdq,
  DequantizeLinear: qdq,
  QLinearMatMul: { 21: types('float8 and float16/bfloat16 scales') },

  // Recurrent.
  GRU: {
    3: refuse('GRU-1 and GRU-3 predate the opset-7 rewrite of the recurrent ops'),
    7: refuse('output_sequence was removed and the recurrence formulas restated'),
    14: same('layout added, default 0 = the old layout'),
  },
  LSTM: {
    7: refuse('output_sequence was removed and the recurrence formulas restated'),
    14: same('layout added, default 0 = the old layout'),
  },
  RNN: {
    7: refuse('output_sequence was removed and the recurrence formulas restated'),
    14: same('layout added, default 0 = the old layout'),
  },
};
