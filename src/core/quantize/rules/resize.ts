/** Resize: only the data input is an activation (roi, scales and sizes stay float/int); output shares its grid. */
import type { OpRule } from './types.ts';

export const resizeRule: OpRule = { family: 'resize', activationInputs: () => [0], output: 'shareInput' };
