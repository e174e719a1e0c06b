/**
 * Activation functions. Relu and Clip fold into the preceding Conv/Gemm/MatMul/Add (no Q/DQ between
 * them: the pair runs as one fused op, the activation's range quantizes their common output).
 */
import { presentInputs, type OpRule } from './types.ts';

export const activationRule: OpRule = { family: 'activation', activationInputs: () => [0], output: 'own' };

export const foldableActivationRule: OpRule = { ...activationRule, foldsIntoProducer: true };

/** Softmax: its output lies in [0, 1] whatever the input, so that range quantizes it (not a calibrated one). */
export const softmaxRule: OpRule = { ...activationRule, family: 'softmax', outputRange: { min: 0, max: 1 } };

/**
 * A node of a function written out as several element-wise nodes (quantize/fusedFunctions.ts): its
 * activation inputs are all its inputs; the planner leaves the function's internal tensors and its
 * constant operands unquantized, so only the function's input and output get Q/DQ.
 */
export const fusedFunctionRule: OpRule = { family: 'function', activationInputs: presentInputs, output: 'own' };
