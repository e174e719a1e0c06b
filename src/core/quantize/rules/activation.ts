/**
 * Activation functions. Relu and Clip fold into the preceding Conv/Gemm/MatMul/Add (no Q/DQ between
 * them: the pair runs as one fused op, the activation's range quantizes their common output).
 */
import type { OpRule } from './types.ts';

export const activationRule: OpRule = { family: 'activation', activationInputs: () => [0], output: 'own' };

export const foldableActivationRule: OpRule = { ...activationRule, foldsIntoProducer: true };
