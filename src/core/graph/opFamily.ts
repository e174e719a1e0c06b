/**
 * Op families, for colouring the graph as Netron does: what a box does is visible before its title is read. One
 * table; ops not in it are 'other' (custom ops included). The colours and labels are the page's (ui/features/graph/families.ts).
 */

export type OpFamily =
  | 'convolution'
  | 'activation'
  | 'normalization'
  | 'pooling'
  | 'dataMovement'
  | 'quantization'
  | 'math'
  | 'other'
  | 'io';

const TABLE: Record<Exclude<OpFamily, 'other' | 'io'>, string[]> = {
  convolution: [
    'Conv',
    'ConvTranspose',
    'ConvInteger',
    'QLinearConv',
    'MatMul',
    'Gemm',
    'MatMulInteger',
    'QLinearMatMul',
    'Einsum',
    'FusedConv',
    'FusedGemm',
  ],
  activation: [
    'Relu',
    'LeakyRelu',
    'PRelu',
    'Sigmoid',
    'HardSigmoid',
    'HardSwish',
    'Tanh',
    'Clip',
    'Elu',
    'Selu',
    'Celu',
    'Gelu',
    'Mish',
    'Softmax',
    'LogSoftmax',
    'Softplus',
    'Softsign',
    'ThresholdedRelu',
  ],
  normalization: [
    'BatchNormalization',
    'InstanceNormalization',
    'LayerNormalization',
    'GroupNormalization',
    'LpNormalization',
    'LRN',
    'MeanVarianceNormalization',
    'Dropout',
  ],
  pooling: [
    'MaxPool',
    'AveragePool',
    'GlobalAveragePool',
    'GlobalMaxPool',
    'LpPool',
    'GlobalLpPool',
    'MaxRoiPool',
    'RoiAlign',
    'ReduceMean',
    'ReduceMax',
    'ReduceMin',
    'ReduceSum',
    'ReduceProd',
    'ReduceL2',
  ],
  dataMovement: [
    'Reshape',
    'Transpose',
    'Concat',
    'Split',
    'Slice',
    'Gather',
    'GatherElements',
    'GatherND',
    'Squeeze',
    'Unsqueeze',
    'Flatten',
    'Expand',
    'Tile',
    'Pad',
    'Resize',
    'Upsample',
    'DepthToSpace',
    'SpaceToDepth',
    'Shape',
    'Size',
    'Identity',
    'ScatterND',
    'ScatterElements',
    'Cast',
    'CastLike',
    'Constant',
    'ConstantOfShape',
    'Range',
    'NonZero',
    'TopK',
    'Where',
  ],
  quantization: [
    'QuantizeLinear',
    'DequantizeLinear',
    'DynamicQuantizeLinear',
    'QLinearAdd',
    'QLinearMul',
    'QLinearSigmoid',
    'QLinearConcat',
    'QLinearAveragePool',
    'QLinearGlobalAveragePool',
  ],
  math: [
    'Add',
    'Sub',
    'Mul',
    'Div',
    'Pow',
    'Sqrt',
    'Exp',
    'Log',
    'Abs',
    'Neg',
    'Reciprocal',
    'Floor',
    'Ceil',
    'Round',
    'Min',
    'Max',
    'Sum',
    'Mean',
    'Erf',
    'Sin',
    'Cos',
    'Equal',
    'Greater',
    'Less',
    'Not',
    'And',
    'Or',
    'ArgMax',
    'ArgMin',
    'CumSum',
  ],
};

const FAMILY_OF = new Map<string, OpFamily>(
  Object.entries(TABLE).flatMap(([family, ops]) => ops.map((op) => [op, family as OpFamily] as const)),
);

/** The family of an op type. */
export function opFamily(opType: string): OpFamily {
  return FAMILY_OF.get(opType) ?? 'other';
}
