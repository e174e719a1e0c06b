/**
 * Ops that move or select values without computing new ones: only the data input (0) is an
 * activation, and outputs share its grid, so a runtime can run them on integers directly.
 */
import type { OpRule } from './types.ts';

export const dataMovementRule: OpRule = { family: 'dataMovement', activationInputs: () => [0], output: 'shareInput' };

/** Slice without AlignSlice: its output is calibrated on its own. */
export const unalignedSliceRule: OpRule = { ...dataMovementRule, output: 'own' };
