/**
 * A small fine-tuning layer for the optimizer tests: `outChannels` × `inPerGroup` weights in `groups` groups on int4
 * codes (scales alternating 2⁻² and 2⁻³, so some weights sit past the grid's ends), a float bias and its rounded
 * quantized one, and `rows` seeded input rows, the quantized ones with ±0.05 of noise.
 */
import type { LayerRows } from '../../src/core/recovery/layerData.ts';
import type { LinearLayer } from '../../src/core/recovery/linearLayers.ts';
import { roundHalfToEven } from '../../src/core/quantize/numeric.ts';
import { seededFloats } from './fixtures.ts';

export function smallLayerRows(
  outChannels: number,
  inPerGroup: number,
  groups: number,
  rows: number,
  seed: number,
): LayerRows {
  const width = groups * inPerGroup;
  const floatWeight = seededFloats(outChannels * inPerGroup, seed, -1, 1);
  const scales = Float64Array.from({ length: outChannels }, (_, m) => 2 ** -(2 + (m % 2))); // some weights past ±8·s
  const codes = Int32Array.from(floatWeight, (w, at) =>
    Math.max(-8, Math.min(7, roundHalfToEven(w / scales[Math.floor(at / inPerGroup)]))),
  );
  const floatBias = seededFloats(outChannels, seed + 1, -0.5, 0.5);
  const layer = {
    id: `layer${seed}`,
    outChannels,
    groups,
    inPerGroup,
    floatWeight,
    codes,
    type: 'int4',
    weightIndex: (m: number, i: number) => m * inPerGroup + i,
    scaleOf: (m: number) => scales[m],
    zeroPointOf: () => 0,
    floatBias,
    bias: floatBias.map((b) => Math.round(b * 64) / 64),
  } as unknown as LinearLayer;
  const floatRows = seededFloats(rows * width, seed + 2, -1, 1);
  const noise = seededFloats(rows * width, seed + 3, -0.05, 0.05);
  const quantRows = floatRows.map((x, i) => x + noise[i]);
  return { layer, rows, width, floatRows, quantRows };
}

/** The largest difference between `a` and the reference `b`, relative to `b`'s largest magnitude. */
export function maxRelative(a: Float64Array, b: Float64Array): number {
  let scale = 0,
    diff = 0;
  for (let i = 0; i < a.length; i++) {
    scale = Math.max(scale, Math.abs(b[i]));
    diff = Math.max(diff, Math.abs(a[i] - b[i]));
  }
  return diff / scale;
}
