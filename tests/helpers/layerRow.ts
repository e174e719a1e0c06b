/**
 * A layer-wise comparison row (core/metrics/layerwise.ts) for the tests that rank, sort or measure rows: the value
 * comparison of one tensor, exact but for its SQNR, on one sample of one element.
 */
import type { LayerRow } from '../../src/core/metrics/layerwise.ts';

/** The row of `tensor` at `sqnr` dB (cosine 1, no node, no dequantized figures), with `fields` replaced. */
export function valueRow(tensor: string, sqnr: number, fields: Partial<LayerRow> = {}): LayerRow {
  return {
    tensor,
    node: null,
    opType: '',
    source: 'value',
    cosine: 1,
    sqnr,
    worstSampleCosine: 1,
    valueCosine: 1,
    valueSqnr: sqnr,
    dequantizedCosine: null,
    dequantizedSqnr: null,
    samples: 1,
    elementsPerSample: 1,
    ...fields,
  };
}
