/**
 * A convolution's input rows as fine-tuning gathers them (core/recovery/layerData.ts layerRowsOf): at every output
 * position, channel by channel, the kernel's taps in order, 0 where the kernel reads padding; checked against a
 * plain im2col for strides, dilations and uneven pads.
 */
import { describe, expect, it } from 'vitest';
import { layerRowsOf } from '../src/core/recovery/layerData.ts';
import type { ConvGeometry, LinearLayer } from '../src/core/recovery/linearLayers.ts';
import { seededFloats } from './helpers/fixtures.ts';

function im2col(data: Float32Array, [n, c, h, w]: number[], g: ConvGeometry): number[] {
  const [kh, kw] = g.kernel;
  const span = (d: 0 | 1) => g.dilations[d] * (g.kernel[d] - 1) + 1;
  const oh = Math.floor((h + g.pads[0] + g.pads[2] - span(0)) / g.strides[0]) + 1;
  const ow = Math.floor((w + g.pads[1] + g.pads[3] - span(1)) / g.strides[1]) + 1;
  const out: number[] = [];
  for (let b = 0; b < n; b++)
    for (let oy = 0; oy < oh; oy++)
      for (let ox = 0; ox < ow; ox++)
        for (let ch = 0; ch < c; ch++)
          for (let ky = 0; ky < kh; ky++)
            for (let kx = 0; kx < kw; kx++) {
              const y = oy * g.strides[0] - g.pads[0] + ky * g.dilations[0];
              const x = ox * g.strides[1] - g.pads[1] + kx * g.dilations[1];
              out.push(y >= 0 && y < h && x >= 0 && x < w ? data[((b * c + ch) * h + y) * w + x] : 0);
            }
  return out;
}

describe("a convolution's gathered input rows", () => {
  const cases: [string, ConvGeometry][] = [
    [
      '3×3, stride 1, pads 1',
      { kernel: [3, 3], strides: [1, 1], dilations: [1, 1], pads: [1, 1, 1, 1], autoPad: 'NOTSET' },
    ],
    [
      '3×2, stride 2×1, dilation 2×1, uneven pads',
      { kernel: [3, 2], strides: [2, 1], dilations: [2, 1], pads: [2, 0, 1, 1], autoPad: 'NOTSET' },
    ],
  ];
  for (const [name, conv] of cases) {
    it(`${name}: every position's row is the plain im2col's`, async () => {
      const dims = [1, 3, 7, 6];
      const data = seededFloats(3 * 7 * 6, 17, -1, 1);
      const layer = {
        id: 'conv',
        opType: 'Conv',
        conv,
        groups: 1,
        inPerGroup: 3 * conv.kernel[0] * conv.kernel[1],
      } as unknown as LinearLayer;
      const [side] = await layerRowsOf(
        [layer],
        () => 'x',
        async (onSample) => onSample(0, { x: { type: 'float32', data, dims } }),
        { positionsPerSample: 1000, samples: 1, seed: 1 },
      );
      const want = im2col(data, dims, conv);
      expect(side.rows * side.width).toBe(want.length);
      expect(Array.from(side.data)).toEqual(want.map((v) => Math.fround(v)));
    });
  }
});
