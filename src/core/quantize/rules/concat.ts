/** Concat: every input is an activation; AlignConcat makes inputs and output share one grid. */
import { presentInputs, type OpRule } from './types.ts';

export const concatRule: OpRule = {
  family: 'concat',
  activationInputs: (node) => presentInputs(node),
  output: 'own',
};
