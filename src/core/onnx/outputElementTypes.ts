/**
 * The element type of each output of an ai.onnx op, as its schema defines it: the same as one of its
 * inputs (most ops: `T` in, `T` out), fixed by the op (Shape and ArgMax give int64, comparisons give
 * bool, MaxPool's second output holds int64 indices), or given by an attribute (Cast's `to`,
 * ConstantOfShape's `value`, RandomNormal's `dtype`). One table, read by elementTypeInference.ts.
 *
 * An op that is missing here, or whose output type cannot be told from what the rule sees (a
 * Sequence op's element, an input whose own type is unknown), gets undefined: callers must treat an
 * unknown type as "not known to be float" and never guess.
 */
import type { GraphProto, NodeProto } from './model.ts';
import { DataType, isDefaultDomain } from './model.ts';
import { constantNodeTensor } from './constantNode.ts';

/** What a rule may ask about the node it types. */
export interface OutputTypeContext {
  /** The element type of input k, when known. */
  input(k: number): number | undefined;
  /** The ai.onnx opset the model imports. */
  readonly opset: number;
  /**
   * The element types of a subgraph's outputs (If's branches, Loop's and Scan's body), in order;
   * `inputs` types the subgraph's inputs that do not state their own, by position.
   */
  subgraphOutputs(graph: GraphProto, inputs: readonly (number | undefined)[]): (number | undefined)[];
}

/** The element type of output `k` of `node`, or undefined when the schema leaves it open or the rule cannot tell. */
export type OutputTypeRule = (node: NodeProto, k: number, ctx: OutputTypeContext) => number | undefined;

const T = DataType;

const sameAs =
  (input: number): OutputTypeRule =>
  (_node, _k, ctx) =>
    ctx.input(input);
const fixed =
  (type: number): OutputTypeRule =>
  () =>
    type;
/** Output 0 like input 0; the other outputs by the given rule. */
const firstLikeInput =
  (rest: OutputTypeRule): OutputTypeRule =>
  (node, k, ctx) =>
    k === 0 ? ctx.input(0) : rest(node, k, ctx);

function attribute(node: NodeProto, name: string) {
  return node.attribute.find((a) => a.name === name);
}

/** An INT attribute holding a data type code (Cast's `to`, RandomNormal's `dtype`), or the fallback. */
const typeAttribute =
  (name: string, fallback: OutputTypeRule): OutputTypeRule =>
  (node, k, ctx) => {
    const a = attribute(node, name);
    const code = a?.i !== undefined && a.i !== null ? Number(a.i) : 0;
    return code > 0 ? code : fallback(node, k, ctx);
  };

const unknown: OutputTypeRule = () => undefined;

/** Cast-1 to -5 named the target type as a string ("FLOAT"); later versions give its code. */
const castTo: OutputTypeRule = (node) => {
  const a = attribute(node, 'to');
  if (a?.i !== undefined && a.i !== null && Number(a.i) > 0) return Number(a.i);
  if (a?.s && a.s.length > 0) {
    const name = new TextDecoder().decode(a.s).toUpperCase();
    const code = (T as unknown as Record<string, number>)[name];
    return typeof code === 'number' && code > 0 ? code : undefined;
  }
  return undefined;
};

/** Constant: the type of whichever value attribute it carries. */
const constantType: OutputTypeRule = (node) => {
  for (const a of node.attribute) {
    switch (a.name) {
      case 'value':
        return a.t?.data_type;
      case 'sparse_value':
        return a.sparse_tensor?.values?.data_type;
      case 'value_float':
      case 'value_floats':
        return T.FLOAT;
      case 'value_int':
      case 'value_ints':
        return T.INT64;
      case 'value_string':
      case 'value_strings':
        return T.STRING;
    }
  }
  return constantNodeTensor(node)?.data_type;
};

/**
 * If, Loop and Scan: the output's type is the type of the matching output of the subgraph, whose
 * inputs are typed from the node's (`bodyInputs`) where they do not state their own.
 */
const subgraphOutput =
  (
    attrs: string[],
    offset: number,
    bodyInputs: (node: NodeProto, ctx: OutputTypeContext) => (number | undefined)[] = () => [],
  ): OutputTypeRule =>
  (node, k, ctx) => {
    for (const name of attrs) {
      const g = attribute(node, name)?.g;
      const t = g ? ctx.subgraphOutputs(g, bodyInputs(node, ctx))[k + offset] : undefined;
      if (t !== undefined) return t;
    }
    return undefined;
  };
const inputTypes = (node: NodeProto, ctx: OutputTypeContext, from: number) =>
  node.input.slice(from).map((_, j) => ctx.input(from + j));

/** Ops whose every output has the element type of input 0 (the schema's `T` in, `T` out). */
const LIKE_FIRST_INPUT = [
  'Abs',
  'Acos',
  'Acosh',
  'Add',
  'AffineGrid',
  'Asin',
  'Asinh',
  'Atan',
  'Atanh',
  'AveragePool',
  'BitShift',
  'BitwiseAnd',
  'BitwiseNot',
  'BitwiseOr',
  'BitwiseXor',
  'Ceil',
  'Celu',
  'CenterCropPad',
  'Clip',
  'Col2Im',
  'Compress',
  'Concat',
  'Conv',
  'ConvTranspose',
  'Cos',
  'Cosh',
  'Crop',
  'CumSum',
  'DeformConv',
  'DepthToSpace',
  'Det',
  'DFT',
  'Div',
  'Einsum',
  'Elu',
  'Erf',
  'Exp',
  'Expand',
  'Flatten',
  'Floor',
  'Gather',
  'GatherElements',
  'GatherND',
  'Gelu',
  'Gemm',
  'GlobalAveragePool',
  'GlobalLpPool',
  'GlobalMaxPool',
  'GridSample',
  'GroupNormalization',
  'GRU',
  'Hardmax',
  'HardSigmoid',
  'HardSwish',
  'Identity',
  'ImageScaler',
  'InstanceNormalization',
  'LeakyRelu',
  'Log',
  'LogSoftmax',
  'LpNormalization',
  'LpPool',
  'LRN',
  'LSTM',
  'MatMul',
  'Max',
  'MaxRoiPool',
  'MaxUnpool',
  'Mean',
  'MeanVarianceNormalization',
  'Min',
  'Mish',
  'Mod',
  'Mul',
  'Neg',
  'NegativeLogLikelihoodLoss',
  'Pad',
  'Pow',
  'PRelu',
  'Range',
  'Reciprocal',
  'ReduceL1',
  'ReduceL2',
  'ReduceLogSum',
  'ReduceLogSumExp',
  'ReduceMax',
  'ReduceMean',
  'ReduceMin',
  'ReduceProd',
  'ReduceSum',
  'ReduceSumSquare',
  'Relu',
  'Reshape',
  'Resize',
  'ReverseSequence',
  'RMSNormalization',
  'RNN',
  'RoiAlign',
  'RotaryEmbedding',
  'Round',
  'Scatter',
  'ScatterElements',
  'ScatterND',
  'Selu',
  'Shrink',
  'Sigmoid',
  'Sign',
  'Sin',
  'Sinh',
  'Slice',
  'Softmax',
  'SoftmaxCrossEntropyLoss',
  'Softplus',
  'Softsign',
  'SpaceToDepth',
  'Split',
  'Sqrt',
  'Squeeze',
  'STFT',
  'Sub',
  'Sum',
  'Swish',
  'Tan',
  'Tanh',
  'ThresholdedRelu',
  'Tile',
  'Transpose',
  'Trilu',
  'Unsqueeze',
  'Upsample',
];

/** Ops whose outputs are int64 whatever they read (shapes, sizes, indices). */
const INT64_OUTPUTS = ['ArgMax', 'ArgMin', 'NonMaxSuppression', 'NonZero', 'SequenceLength', 'Shape', 'Size'];

/** Ops whose outputs are bool: comparisons, logic, and value tests. */
const BOOL_OUTPUTS = [
  'And',
  'Equal',
  'Greater',
  'GreaterOrEqual',
  'IsInf',
  'IsNaN',
  'Less',
  'LessOrEqual',
  'Not',
  'OptionalHasElement',
  'Or',
  'RegexFullMatch',
  'Xor',
];

const RULES: Readonly<Record<string, OutputTypeRule>> = {
  ...Object.fromEntries(LIKE_FIRST_INPUT.map((op) => [op, sameAs(0)])),
  ...Object.fromEntries(INT64_OUTPUTS.map((op) => [op, fixed(T.INT64)])),
  ...Object.fromEntries(BOOL_OUTPUTS.map((op) => [op, fixed(T.BOOL)])),

  // Several outputs of different kinds.
  MaxPool: firstLikeInput(fixed(T.INT64)), // Indices
  TopK: firstLikeInput(fixed(T.INT64)), // Indices
  Unique: firstLikeInput(fixed(T.INT64)), // indices, inverse_indices, counts
  Dropout: firstLikeInput((_n, _k, ctx) => (ctx.opset >= 7 ? T.BOOL : ctx.input(0))), // mask
  // Running mean and variance (opset 14+: type of input 3; before: like X).
  BatchNormalization: firstLikeInput((_n, _k, ctx) => ctx.input(3) ?? ctx.input(0)),
  // Mean and inverse standard deviation, in stash_type (float by default).
  LayerNormalization: firstLikeInput(typeAttribute('stash_type', fixed(T.FLOAT))),

  // The type of another input.
  Where: sameAs(1),
  CastLike: sameAs(1),
  OneHot: sameAs(2), // values

  // Given by an attribute.
  Cast: castTo,
  Constant: constantType,
  ConstantOfShape: (node) => attribute(node, 'value')?.t?.data_type ?? T.FLOAT,
  EyeLike: typeAttribute('dtype', sameAs(0)),
  RandomNormal: typeAttribute('dtype', fixed(T.FLOAT)),
  RandomUniform: typeAttribute('dtype', fixed(T.FLOAT)),
  RandomNormalLike: typeAttribute('dtype', sameAs(0)),
  RandomUniformLike: typeAttribute('dtype', sameAs(0)),
  Bernoulli: typeAttribute('dtype', sameAs(0)),
  Multinomial: typeAttribute('dtype', fixed(T.INT32)),
  BlackmanWindow: typeAttribute('output_datatype', fixed(T.FLOAT)),
  HammingWindow: typeAttribute('output_datatype', fixed(T.FLOAT)),
  HannWindow: typeAttribute('output_datatype', fixed(T.FLOAT)),
  MelWeightMatrix: typeAttribute('output_datatype', fixed(T.FLOAT)),

  // Quantization ops: integers where the zero point says so, floats where the scale does.
  QuantizeLinear: typeAttribute('output_dtype', (_n, _k, ctx) => ctx.input(2) ?? T.UINT8),
  DequantizeLinear: (_n, _k, ctx) => ctx.input(1) ?? T.FLOAT,
  DynamicQuantizeLinear: (_n, k) => (k === 1 ? T.FLOAT : T.UINT8),
  QLinearConv: (_n, _k, ctx) => ctx.input(7) ?? T.UINT8,
  QLinearMatMul: (_n, _k, ctx) => ctx.input(7) ?? T.UINT8,
  ConvInteger: fixed(T.INT32),
  MatMulInteger: fixed(T.INT32),

  // Text and images.
  TfIdfVectorizer: fixed(T.FLOAT),
  StringNormalizer: fixed(T.STRING),
  StringConcat: fixed(T.STRING),
  StringSplit: (_n, k) => (k === 0 ? T.STRING : T.INT64),
  ImageDecoder: fixed(T.UINT8),

  // Control flow: the matching output of the subgraph. Loop's body reads (iteration, condition,
  // carried values…) and writes (condition, carried values…, scan outputs…); Scan's body reads its
  // state and scan inputs in order (Scan-8 first takes sequence_lens, which the body does not see).
  If: subgraphOutput(['then_branch', 'else_branch'], 0),
  Loop: subgraphOutput(['body'], 1, (node, ctx) => [T.INT64, T.BOOL, ...inputTypes(node, ctx, 2)]),
  Scan: subgraphOutput(['body'], 0, (node, ctx) => inputTypes(node, ctx, ctx.opset >= 9 ? 0 : 1)),
};

/** ONNX Runtime's contrib Q/DQ (what the quantizer writes for 16-bit types below opset 21) follow ai.onnx's rules. */
const MS_RULES: Readonly<Record<string, OutputTypeRule>> = {
  QuantizeLinear: RULES.QuantizeLinear,
  DequantizeLinear: RULES.DequantizeLinear,
};

/** The rule of an op; unknown ops and other domains get a rule that always answers undefined. */
export function outputTypeRule(opType: string, domain?: string): OutputTypeRule {
  const table = isDefaultDomain(domain) ? RULES : domain === 'com.microsoft' ? MS_RULES : undefined;
  return table && Object.prototype.hasOwnProperty.call(table, opType) ? table[opType] : unknown;
}
