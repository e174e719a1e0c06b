/**
 * The recovery steps' dense float64 work on onnxruntime-node's double MatMul (core/recovery/denseProduct.ts): a layer's
 * problem (G, c, τ) and a loss built that way equal the TypeScript loops' to float64 rounding (only the order of
 * summation differs), G stays exactly symmetric, small groups stay in TypeScript (bit-identical), and AdaRound then
 * chooses the same codes.
 */
import { describe, expect, it } from 'vitest';
import {
  buildLayerProblem,
  buildLayerProblemOn,
  layerLoss,
  layerLossOn,
  type LayerProblem,
} from '../src/core/recovery/layerProblem.ts';
import type { DenseProduct } from '../src/core/recovery/denseProduct.ts';
import { adaround } from '../src/core/recovery/adaround.ts';
import { nodeDenseProduct } from '../src/cli/runtime/denseProduct.ts';
import { nodeGramProduct } from '../src/cli/runtime/gramProduct.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { maxRelative, smallLayerRows } from './helpers/layerRows.ts';
import { testTuneOptions } from './helpers/tuneOptions.ts';

const rowsOf = smallLayerRows;

describe('dense products on the runtime (float64)', () => {
  it('a layer problem built on onnxruntime equals the TypeScript one to float64 rounding, with G exactly symmetric', async () => {
    const data = rowsOf(24, 80, 1, 400, 3);
    let calls = 0;
    const counted: DenseProduct = (...args) => {
      calls++;
      return nodeDenseProduct(...args);
    };
    for (const target of ['float', 'local'] as const) {
      const ts = buildLayerProblem(data, target);
      const rt = await buildLayerProblemOn(data, target, counted);
      const [a, b] = [rt.groups[0], ts.groups[0]];
      expect(maxRelative(a.gram, b.gram)).toBeLessThan(1e-13);
      expect(maxRelative(a.cross, b.cross)).toBeLessThan(1e-13);
      expect(maxRelative(a.targetSq, b.targetSq)).toBeLessThan(1e-13);
      for (let i = 0; i < a.k; i++) for (let j = 0; j < a.k; j++) expect(a.gram[i * a.k + j]).toBe(a.gram[j * a.k + i]);
    }
    expect(calls).toBe(6); // targets, G and c on the runtime, for each target
  });

  it('small groups (depthwise) stay in TypeScript: the same problem to the bit, no runtime call', async () => {
    const data = rowsOf(16, 9, 16, 200, 5);
    let calls = 0;
    const rt = await buildLayerProblemOn(data, 'float', (...args) => {
      calls++;
      return nodeDenseProduct(...args);
    });
    expect(calls).toBe(0);
    expect(rt.groups.map((g) => Array.from(g.gram))).toEqual(
      buildLayerProblem(data).groups.map((g) => Array.from(g.gram)),
    );
  });

  it('narrow groups of a grouped layer stay in TypeScript even over many rows, each group to the bit as if built alone', async () => {
    // 40 depthwise groups of 25 inputs over 2048 rows: rows·k² is past DENSE_RUNTIME_MIN_WORK, k under 48; the
    // groups are read through contiguous copies of runs of groups (layerProblem.ts groupRows).
    const data = rowsOf(40, 25, 40, 2048, 9);
    let calls = 0;
    const rt = await buildLayerProblemOn(data, 'float', (...args) => {
      calls++;
      return nodeDenseProduct(...args);
    });
    expect(calls).toBe(0);
    const { layer, rows, width } = data;
    for (const g of [0, 9, 10, 23, 39]) {
      const alone = buildLayerProblem({
        layer: {
          ...layer,
          outChannels: 1,
          groups: 1,
          weightIndex: (m: number, i: number) => layer.weightIndex(g + m, i),
          scaleOf: (m: number) => layer.scaleOf(g + m),
          floatBias: layer.floatBias.subarray(g, g + 1),
          bias: layer.bias.subarray(g, g + 1),
        },
        rows,
        width: 25,
        floatRows: Float32Array.from(
          { length: rows * 25 },
          (_, i) => data.floatRows[((i / 25) | 0) * width + g * 25 + (i % 25)],
        ),
        quantRows: Float32Array.from(
          { length: rows * 25 },
          (_, i) => data.quantRows[((i / 25) | 0) * width + g * 25 + (i % 25)],
        ),
      }).groups[0];
      expect(Array.from(rt.groups[g].gram)).toEqual(Array.from(alone.gram));
      expect(Array.from(rt.groups[g].cross)).toEqual(Array.from(alone.cross));
      expect(Array.from(rt.groups[g].targetSq)).toEqual(Array.from(alone.targetSq));
    }
  });

  it('the loss of given weights on onnxruntime equals layerLoss to float64 rounding', async () => {
    const p: LayerProblem = buildLayerProblem(rowsOf(24, 80, 1, 400, 7));
    const v = seededFloats(24 * 81, 11, -1, 1);
    const exact = layerLoss(p, Float64Array.from(v));
    expect(Math.abs((await layerLossOn(p, Float64Array.from(v), nodeDenseProduct)) - exact)).toBeLessThan(
      1e-12 * Math.abs(exact),
    );
  });

  it('AdaRound scoring with the runtime chooses the codes it chooses in TypeScript', async () => {
    const data = rowsOf(24, 80, 1, 400, 13);
    const options = testTuneOptions(200, { updateBias: false, product: nodeGramProduct });
    const ts = await adaround(buildLayerProblem(data), options);
    const rt = await adaround(await buildLayerProblemOn(data, 'float', nodeDenseProduct), {
      ...options,
      dense: nodeDenseProduct,
    });
    expect(Array.from(rt.codes ?? data.layer.codes)).toEqual(Array.from(ts.codes ?? data.layer.codes));
    expect(Math.abs(rt.lossAfter - ts.lossAfter)).toBeLessThan(1e-9 * ts.lossAfter);
  });
});
