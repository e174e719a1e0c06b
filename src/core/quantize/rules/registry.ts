/**
 * Op type → quantization rule. An op without a rule stays float and is listed in the result, never an
 * error. ONNX Runtime's QDQ registry and Quark's NPU CNN registry cover these families.
 */
import type { OpRule } from './types.ts';
import { convRule, convTransposeRule } from './conv.ts';
import { gemmRule, matMulRule } from './gemm.ts';
import { addRule, elementwiseRule } from './elementwise.ts';
import { concatRule } from './concat.ts';
import { averagePoolRule, maxPoolRule } from './pooling.ts';
import { resizeRule } from './resize.ts';
import { dataMovementRule, unalignedSliceRule } from './dataMovement.ts';
import { activationRule, foldableActivationRule, softmaxRule } from './activation.ts';
import { layerNormRule } from './normalization.ts';
import { genericRule } from './generic.ts';

const RULES: Readonly<Record<string, OpRule>> = {
  Conv: convRule,
  ConvTranspose: convTransposeRule,
  Gemm: gemmRule,
  MatMul: matMulRule,
  Add: addRule,
  Sub: elementwiseRule,
  Mul: elementwiseRule,
  Div: elementwiseRule,
  Max: elementwiseRule,
  Min: elementwiseRule,
  Sum: elementwiseRule,
  Concat: concatRule,
  MaxPool: maxPoolRule,
  GlobalMaxPool: maxPoolRule,
  AveragePool: averagePoolRule,
  GlobalAveragePool: averagePoolRule,
  Resize: resizeRule,
  Upsample: resizeRule,
  Reshape: dataMovementRule,
  Transpose: dataMovementRule,
  Squeeze: dataMovementRule,
  Unsqueeze: dataMovementRule,
  Flatten: dataMovementRule,
  Slice: dataMovementRule,
  Split: dataMovementRule,
  Gather: dataMovementRule,
  DepthToSpace: dataMovementRule,
  SpaceToDepth: dataMovementRule,
  Expand: dataMovementRule,
  Tile: dataMovementRule,
  Pad: dataMovementRule,
  Identity: dataMovementRule,
  Relu: foldableActivationRule,
  Clip: foldableActivationRule,
  LeakyRelu: activationRule,
  PRelu: activationRule,
  Sigmoid: activationRule,
  HardSigmoid: activationRule,
  HardSwish: activationRule,
  Softmax: softmaxRule,
  Tanh: activationRule,
  Erf: activationRule,
  Gelu: activationRule,
  LayerNormalization: layerNormRule,
};

/**
 * The rule for an op type (default domain), or undefined when it has none. With QuantizeAllOpTypes,
 * every op without a rule of its own takes the generic one; AlignSlice=false gives Slice its own range.
 */
export function ruleFor(
  opType: string,
  options: { quantizeAllOpTypes: boolean; alignSlice: boolean },
): OpRule | undefined {
  if (opType === 'Slice' && !options.alignSlice) return unalignedSliceRule;
  return RULES[opType] ?? (options.quantizeAllOpTypes ? genericRule : undefined);
}
