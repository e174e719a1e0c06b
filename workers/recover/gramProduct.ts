/**
 * The recovery optimizers' inner product (v·G, core/recover/layerProblem.ts) on the worker's runtime
 * (onnxruntime-web WASM in the page): one MatMul model per layer group, G its initializer, each optimizer
 * step's vectors its input. onnxruntime's MatMul is many times faster than the TypeScript loop (bench/README.md,
 * suites recover and recover-browser), so the recovery worker injects it. Must not decode or hold anything else.
 */
import { DataType, encode, makeGraph, makeModel, makeNode, makeTensor, makeValueInfo } from '../../src/core/onnx/index.ts';
import type { GramProductFactory } from '../../src/core/recover/layerProblem.ts';
import type { Runtime } from '../runtime/session.ts';

/** A GramProductFactory on `runtime` (sessions of purpose 'float': the page's worker asks for WASM). */
export function runtimeGramProduct(runtime: Runtime): GramProductFactory {
  return async (gram, k, rows) => {
    const model = makeModel(makeGraph({
      node: [makeNode('MatMul', ['v', 'G'], ['y'])],
      input: [makeValueInfo('v', DataType.FLOAT, [rows, k])],
      output: [makeValueInfo('y', DataType.FLOAT, [rows, k])],
      initializer: [makeTensor('G', DataType.FLOAT, [k, k], gram)],
    }), { '': 13 });
    const { runner } = await runtime.createSession(encode(model), 'float');
    return {
      async multiply(v) {
        const out = await runner.run({ v: { type: 'float32', data: v, dims: [rows, k] } });
        return out.y.data as Float32Array;
      },
      release: () => runner.release(),
    };
  };
}
