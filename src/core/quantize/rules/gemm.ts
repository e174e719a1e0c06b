/**
 * Gemm and MatMul. A constant B is the weight, its output channels along axis 0 when Gemm transposes
 * it (transB = 1) and along its last axis otherwise; a computed B is a second activation (attention-
 * style MatMul). Gemm's constant 1-D C is the bias.
 */
import { intAttr, type OpRule } from './types.ts';

export const gemmRule: OpRule = {
  family: 'gemm',
  activationInputs: (node, ctx) => (ctx.isConstant(node.input[1] ?? '') ? [0] : [0, 1]),
  weight: (node, ctx) =>
    ctx.isConstant(node.input[1] ?? '') ? { input: 1, axis: intAttr(node, 'transB', 0) === 1 ? 0 : 1 } : undefined,
  bias: (node, ctx) =>
    node.input[2] && ctx.isConstant(node.input[2]) && ctx.constantRank(node.input[2]) === 1 ? 2 : undefined,
  output: 'own',
  acceptsFoldedActivation: true,
};

export const matMulRule: OpRule = {
  family: 'matmul',
  activationInputs: (node, ctx) => (ctx.isConstant(node.input[1] ?? '') ? [0] : [0, 1]),
  weight: (node, ctx) => {
    const rank = ctx.constantRank(node.input[1] ?? '');
    return rank !== undefined && rank >= 2 ? { input: 1, axis: rank - 1 } : undefined;
  },
  output: 'own',
  acceptsFoldedActivation: true,
};
