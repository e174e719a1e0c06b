/**
 * Pooling. Max pooling picks input values, so its output shares the input's grid; average pooling
 * computes new values and gets its own range.
 */
import type { OpRule } from './types.ts';

export const maxPoolRule: OpRule = { family: 'pool', activationInputs: () => [0], output: 'shareInput' };
export const averagePoolRule: OpRule = { family: 'pool', activationInputs: () => [0], output: 'own' };
