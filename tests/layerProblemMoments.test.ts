/**
 * A layer's problem with c and τ from the input moments (layerProblem.ts problemForm 'moments', the cheap form for
 * wide layers) equals the per-channel-target form to float64 rounding, in TypeScript and on onnxruntime's double
 * MatMul, for a wide layer (more outputs than inputs) and a narrow one, and AdaRound and AdaQuant tune the same
 * weights from either.
 */
import { describe, expect, it } from 'vitest';
import {
  buildLayerProblem,
  buildLayerProblemOn,
  problemForm,
  type ProblemForm,
} from '../src/core/recovery/layerProblem.ts';
import { adaround } from '../src/core/recovery/adaround.ts';
import { adaquant } from '../src/core/recovery/adaquant.ts';
import { nodeDenseProduct } from '../src/cli/runtime/denseProduct.ts';
import { nodeGramProduct } from '../src/cli/runtime/gramProduct.ts';
import { maxRelative, smallLayerRows } from './helpers/layerRows.ts';
import { testTuneOptions } from './helpers/tuneOptions.ts';

const wide = () => smallLayerRows(200, 12, 1, 300, 21);
const narrow = () => smallLayerRows(12, 40, 1, 300, 23);
const grouped = () => smallLayerRows(64, 6, 2, 200, 25);
/** Large enough for the runtime's products (rows·k² ≥ DENSE_RUNTIME_MIN_WORK). */
const wideLarge = () => smallLayerRows(400, 60, 1, 400, 27);

const tuneOptions = testTuneOptions(150, { product: nodeGramProduct });

describe('layer problem from input moments', () => {
  it('picks the moments for wide layers only', () => {
    expect(problemForm(wide())).toBe('moments');
    expect(problemForm(grouped())).toBe('moments');
    expect(problemForm(narrow())).toBe('targets');
  });

  for (const [name, make] of [
    ['wide', wide],
    ['narrow', narrow],
    ['grouped', grouped],
    ['wide, on the runtime', wideLarge],
  ] as const) {
    it(`${name}: G, c and τ equal the targets' form to float64 rounding (TypeScript and runtime, both targets)`, async () => {
      const data = make();
      for (const target of ['float', 'local'] as const) {
        const old = buildLayerProblem(data, target, 'targets');
        let calls = 0;
        const news = [
          buildLayerProblem(data, target, 'moments'),
          await buildLayerProblemOn(data, target, (...args) => (calls++, nodeDenseProduct(...args)), 'moments'),
        ];
        expect(calls).toBe(make !== wideLarge ? 0 : 5); // G, H, F, W·H, W·F
        for (const p of news)
          for (let g = 0; g < old.groups.length; g++) {
            const [a, b] = [p.groups[g], old.groups[g]];
            expect(Array.from(a.gram)).toEqual(Array.from(b.gram).map((v) => expect.closeTo(v, 12)));
            expect(maxRelative(a.cross, b.cross)).toBeLessThan(1e-12);
            expect(maxRelative(a.targetSq, b.targetSq)).toBeLessThan(1e-12);
          }
      }
    });

    it(`${name}: AdaRound and AdaQuant tune the same weights from either form`, async () => {
      const data = make();
      const problem = (form: ProblemForm) => buildLayerProblem(data, 'float', form);
      const [roundOld, roundNew] = [
        await adaround(problem('targets'), tuneOptions),
        await adaround(problem('moments'), tuneOptions),
      ];
      expect(Array.from(roundNew.codes ?? [])).toEqual(Array.from(roundOld.codes ?? []));
      expect(Math.abs(roundNew.lossAfter - roundOld.lossAfter)).toBeLessThan(1e-9 * roundOld.lossAfter);
      const [quantOld, quantNew] = [
        await adaquant(problem('targets'), tuneOptions),
        await adaquant(problem('moments'), tuneOptions),
      ];
      expect(Array.from(quantNew.codes ?? [])).toEqual(Array.from(quantOld.codes ?? []));
      const [biasOld, biasNew] = [quantOld.bias ?? new Float32Array(), quantNew.bias ?? new Float32Array()];
      expect(biasNew.length).toBe(biasOld.length);
      for (let m = 0; m < biasOld.length; m++) expect(biasNew[m]).toBeCloseTo(biasOld[m], 5);
      expect(Math.abs(quantNew.lossAfter - quantOld.lossAfter)).toBeLessThan(1e-9 * quantOld.lossAfter);
    });
  }
});
