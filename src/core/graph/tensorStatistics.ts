/**
 * What the node inspector shows of a weight: its value statistics and a histogram. Computed where the
 * weights are (the model worker), so only these few numbers cross to the page.
 */
import type { TensorProto } from '../onnx/model.ts';
import { elementTypeName } from '../onnx/elementTypes.ts';
import { readTensorAsFloat32 } from '../onnx/tensorData.ts';

export interface TensorStatistics {
  name: string;
  dims: number[];
  elementType: string;
  count: number;
  /** Over the finite values; NaN when there are none. */
  min: number;
  max: number;
  mean: number;
  std: number;
  zeros: number;
  nonFinite: number;
  /** Counts of `bins` equal-width bins over [min, max]. */
  histogram: number[];
}

/** Statistics of a tensor's values; throws the core's InvalidModelError for data that holds no numbers. */
export function tensorStatistics(t: TensorProto, bins = 32): TensorStatistics {
  const values = readTensorAsFloat32(t);
  let min = Infinity,
    max = -Infinity,
    sum = 0,
    sumSquares = 0,
    zeros = 0,
    nonFinite = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isFinite(v)) {
      nonFinite++;
      continue;
    }
    if (v < min) min = v;
    if (v > max) max = v;
    if (v === 0) zeros++;
    sum += v;
    sumSquares += v * v;
  }
  const finite = values.length - nonFinite;
  const mean = finite ? sum / finite : NaN;
  const histogram = new Array<number>(bins).fill(0);
  if (finite) {
    const width = (max - min) / bins;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (!Number.isFinite(v)) continue;
      histogram[width > 0 ? Math.min(bins - 1, Math.floor((v - min) / width)) : 0]++;
    }
  }
  return {
    name: t.name ?? '',
    dims: [...t.dims],
    elementType: elementTypeName(t.data_type),
    count: values.length,
    min: finite ? min : NaN,
    max: finite ? max : NaN,
    mean,
    std: finite ? Math.sqrt(Math.max(0, sumSquares / finite - mean * mean)) : NaN,
    zeros,
    nonFinite,
    histogram,
  };
}
