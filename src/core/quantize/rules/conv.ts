/**
 * Conv and ConvTranspose: the input is an activation, the weight is quantized per output channel
 * (axis 0 for Conv's [M, C/g, kH, kW]; axis 1 for ConvTranspose's [C, M/g, kH, kW], per tensor when
 * grouped since its bias then has more channels than axis 1), the bias from input × weight scales.
 */
import { intAttr, type OpRule } from './types.ts';

export const convRule: OpRule = {
  family: 'conv',
  activationInputs: () => [0],
  weight: (node, ctx) => (ctx.isConstant(node.input[1] ?? '') ? { input: 1, axis: 0 } : undefined),
  bias: (node, ctx) => (node.input[2] && ctx.isConstant(node.input[2]) ? 2 : undefined),
  output: 'own',
  acceptsFoldedActivation: true,
};

export const convTransposeRule: OpRule = {
  ...convRule,
  family: 'convTranspose',
  weight: (node, ctx) =>
    ctx.isConstant(node.input[1] ?? '') ? { input: 1, axis: intAttr(node, 'group', 1) === 1 ? 1 : -1 } : undefined,
};
