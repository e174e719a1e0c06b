/**
 * The optimizers' runtime product by G's factor (core/recovery/gramModel.ts GramFactor, layerProblem.ts gramForm): a
 * layer with fewer than half as many input rows as k multiplies by Aᵀ/n then A instead of G. On onnxruntime-node it
 * gives v·G to float32 precision, only such layers take it, and AdaRound on it stays as close to the float64 loop
 * as with G itself.
 */
import { describe, expect, it } from 'vitest';
import { buildLayerProblem, gramForm, usesFactor } from '../src/core/recovery/layerProblem.ts';
import { adaround } from '../src/core/recovery/adaround.ts';
import { codesLoss } from '../src/core/recovery/tuning.ts';
import { nodeGramProduct } from '../src/cli/runtime/gramProduct.ts';
import { seededFloats } from './helpers/fixtures.ts';
import { smallLayerRows } from './helpers/layerRows.ts';
import { testTuneOptions } from './helpers/tuneOptions.ts';

describe("the Gram product by G's factor", () => {
  it('only layers with fewer than k/2 rows use the factor, and its product is v·G to float32 precision', async () => {
    expect(usesFactor(buildLayerProblem(smallLayerRows(8, 150, 1, 200, 3)))).toBe(false);
    const p = buildLayerProblem(smallLayerRows(8, 150, 1, 60, 3));
    expect(usesFactor(p)).toBe(true);
    const form = gramForm(p, 0);
    expect(form).not.toBeInstanceOf(Float32Array);
    const k = p.groups[0].k;
    const rows = 3;
    const product = await nodeGramProduct(form, k, rows);
    const v = seededFloats(rows * k, 5, -1, 1);
    const y = await product.multiply(v);
    const gram = p.groups[0].gram;
    let scale = 0;
    let worst = 0;
    for (let r = 0; r < rows; r++) {
      for (let j = 0; j < k; j++) {
        let want = 0;
        for (let i = 0; i < k; i++) want += v[r * k + i] * gram[i * k + j];
        scale = Math.max(scale, Math.abs(want));
        worst = Math.max(worst, Math.abs(y[r * k + j] - want));
      }
    }
    expect(worst / scale).toBeLessThan(1e-5);
    await product.release();
  });

  it('AdaRound by the factor chooses the codes of AdaRound by G (TypeScript float64) but for at most 1 %, its loss no worse than 0.1 % above', async () => {
    const p = buildLayerProblem(smallLayerRows(16, 150, 1, 60, 7));
    expect(usesFactor(p)).toBe(true);
    const options = testTuneOptions(300);
    const byFactor = await adaround(p, { ...options, product: nodeGramProduct });
    const byGram = await adaround(p, options);
    expect(byFactor.codes).toBeDefined();
    const differing = byFactor.codes!.filter((c, i) => c !== byGram.codes![i]).length;
    expect(differing).toBeLessThanOrEqual(Math.ceil(0.01 * byFactor.codes!.length));
    expect(byFactor.lossAfter).toBeLessThanOrEqual((await codesLoss(p, byGram.codes!)) * 1.001);
  });
});
