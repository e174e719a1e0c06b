/**
 * The op families' colours and labels on the page (the families themselves: core/graph/opFamily.ts).
 */
import type { OpFamily } from '../../../core/graph/opFamily.ts';

export { opFamily, type OpFamily } from '../../../core/graph/opFamily.ts';

/** Fill colours per family (white text on all of them). */
export const FAMILY_COLOURS: Record<OpFamily, string> = {
  convolution: '#2f5b8a',
  activation: '#8a3030',
  normalization: '#2f6b45',
  pooling: '#3d7a6e',
  dataMovement: '#7a6030',
  quantization: '#6a3f8a',
  math: '#4f5966',
  other: '#5d4b5d',
  io: '#20262e',
};

export const FAMILY_LABELS: Record<OpFamily, string> = {
  convolution: 'convolution / matmul',
  activation: 'activation',
  normalization: 'normalisation',
  pooling: 'pooling / reduce',
  dataMovement: 'data movement',
  quantization: 'quantization',
  math: 'arithmetic',
  other: 'other',
  io: 'graph input / output',
};
