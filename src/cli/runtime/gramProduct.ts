/**
 * The recovery optimizers' inner product (v·G, core/recovery/layerProblem.ts) on onnxruntime-node: a session on
 * the MatMul model of core/recovery/gramModel.ts per layer group, fed each step's vectors. Measured many times
 * faster than the TypeScript loop (bench/README.md, suite recover), so the command line and the benchmarks inject it.
 */
import { GRAM_INPUT, GRAM_OUTPUT, gramProductModel } from '../../core/recovery/gramModel.ts';
import type { GramProductFactory } from '../../core/recovery/layerProblem.ts';
import { createSession, float32Tensor } from './ortNode.ts';

/** A GramProductFactory running onnxruntime-node's MatMul on one thread (the caller's other work runs beside it). */
export const nodeGramProduct: GramProductFactory = async (gram, k, rows) => {
  const session = await createSession(gramProductModel(gram, k, rows), 1);
  return {
    async multiply(v) {
      const out = await session.run({ [GRAM_INPUT]: float32Tensor(v, [rows, k]) });
      return out[GRAM_OUTPUT].data as Float32Array;
    },
    release: () => session.release(),
  };
};
