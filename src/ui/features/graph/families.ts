/**
 * Op families, for colouring the graph as Netron does: what a box does is visible before its title
 * is read. One table; ops not in it are 'other' (custom ops included).
 */

export type OpFamily = 'convolution' | 'activation' | 'normalization' | 'pooling' | 'dataMovement' | 'quantization' | 'math' | 'other' | 'io';

const TABLE: Record<Exclude<OpFamily, 'other' | 'io'>, string[]> = {
  convolution: ['Conv', 'ConvTranspose', 'ConvInteger', 'QLinearConv', 'MatMul', 'Gemm', 'MatMulInteger', 'QLinearMatMul', 'Einsum', 'FusedConv', 'FusedGemm'],
  activation: ['Relu', 'LeakyRelu', 'PRelu', 'Sigmoid', 'HardSigmoid', 'HardSwish', 'Tanh', 'Clip', 'Elu', 'Selu', 'Celu', 'Gelu', 'Mish', 'Softmax', 'LogSoftmax', 'Softplus', 'Softsign', 'ThresholdedRelu'],
  normalization: ['BatchNormalization', 'InstanceNormalization', 'LayerNormalization', 'GroupNormalization', 'LpNormalization', 'LRN', 'MeanVarianceNormalization', 'Dropout'],
  pooling: ['MaxPool', 'AveragePool', 'GlobalAveragePool', 'GlobalMaxPool', 'LpPool', 'GlobalLpPool', 'MaxRoiPool', 'RoiAlign', 'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceSum', 'ReduceProd', 'ReduceL2'],
  dataMovement: ['Reshape', 'Transpose', 'Concat', 'Split', 'Slice', 'Gather', 'GatherElements', 'GatherND', 'Squeeze', 'Unsqueeze', 'Flatten', 'Expand', 'Tile', 'Pad', 'Resize', 'Upsample', 'DepthToSpace', 'SpaceToDepth', 'Shape', 'Size', 'Identity', 'ScatterND', 'ScatterElements', 'Cast', 'CastLike', 'Constant', 'ConstantOfShape', 'Range', 'NonZero', 'TopK', 'Where'],
  quantization: ['QuantizeLinear', 'DequantizeLinear', 'DynamicQuantizeLinear', 'QLinearAdd', 'QLinearMul', 'QLinearSigmoid', 'QLinearConcat', 'QLinearAveragePool', 'QLinearGlobalAveragePool'],
  math: ['Add', 'Sub', 'Mul', 'Div', 'Pow', 'Sqrt', 'Exp', 'Log', 'Abs', 'Neg', 'Reciprocal', 'Floor', 'Ceil', 'Round', 'Min', 'Max', 'Sum', 'Mean', 'Erf', 'Sin', 'Cos', 'Equal', 'Greater', 'Less', 'Not', 'And', 'Or', 'ArgMax', 'ArgMin', 'CumSum'],
};

const FAMILY_OF = new Map<string, OpFamily>(Object.entries(TABLE).flatMap(([family, ops]) => ops.map((op) => [op, family as OpFamily] as const)));

/** The family of an op type. */
export function opFamily(opType: string): OpFamily {
  return FAMILY_OF.get(opType) ?? 'other';
}

/** Fill colours per family (white text on all of them). */
export const FAMILY_COLOURS: Record<OpFamily, string> = {
  convolution: '#2f5b8a',
  activation: '#8a3030',
  normalization: '#2f6b45',
  pooling: '#3d7a6e',
  dataMovement: '#7a6030',
  quantization: '#6a3f8a',
  math: '#4f5966',
  other: '#5d4b5d',
  io: '#20262e',
};

export const FAMILY_LABELS: Record<OpFamily, string> = {
  convolution: 'convolution / matmul',
  activation: 'activation',
  normalization: 'normalisation',
  pooling: 'pooling / reduce',
  dataMovement: 'data movement',
  quantization: 'quantization',
  math: 'arithmetic',
  other: 'other',
  io: 'graph input / output',
};
