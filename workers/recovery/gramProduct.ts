/**
 * The recovery optimizers' inner product (v·G, core/recovery/layerProblem.ts) on the worker's runtime
 * (onnxruntime-web WASM in the page): a session on the MatMul model of core/recovery/gramModel.ts per layer group,
 * fed each optimizer step's vectors. onnxruntime's MatMul is many times faster than the TypeScript loop
 * (bench/README.md, suites recover and recover-browser), so the recovery worker injects it. Must not decode or
 * hold anything else.
 */
import { GRAM_INPUT, GRAM_OUTPUT, gramProductModel } from '../../src/core/recovery/gramModel.ts';
import type { GramProductFactory } from '../../src/core/recovery/layerProblem.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';

/** A GramProductFactory on `runtime` (sessions of purpose 'float': the page's worker asks for WASM). */
export function runtimeGramProduct(runtime: Runtime): GramProductFactory {
  return async (gram, k, rows) => {
    const { runner } = await runtime.createSession(gramProductModel(gram, k, rows), 'float');
    return {
      async multiply(v) {
        const out = await runner.run({ [GRAM_INPUT]: { type: 'float32', data: v, dims: [rows, k] } });
        return out[GRAM_OUTPUT].data as Float32Array;
      },
      release: () => runner.release(),
    };
  };
}
