/**
 * The rule for any other op when QuantizeAllOpTypes is on (Quark): every input that carries float
 * activations is quantized, and so are the outputs. Inputs that are not float (indices, shapes) have
 * no calibrated range and are left alone by the planner.
 */
import { presentInputs, type OpRule } from './types.ts';

export const genericRule: OpRule = {
  family: 'generic',
  activationInputs: (node) => presentInputs(node),
  output: 'own',
};
