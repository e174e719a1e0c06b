/**
 * Element-wise binary and n-ary ops: every input is an activation; a constant operand (a scale, an
 * offset) is quantized per tensor, with the activation type when AlignEltwiseQuantType asks for it.
 */
import { presentInputs, type OpRule } from './types.ts';

export const elementwiseRule: OpRule = {
  family: 'elementwise',
  activationInputs: (node) => presentInputs(node),
  output: 'own',
};

/** Add takes a following Relu into its range like a convolution does (residual blocks). */
export const addRule: OpRule = { ...elementwiseRule, acceptsFoldedActivation: true };
