/**
 * The recovery optimizers' inner product (v·G, core/recover/layerProblem.ts) on onnxruntime-node: one MatMul
 * model per layer group with G as its initializer, fed each step's vectors. Measured many times faster than the
 * TypeScript loop (bench/README.md, suite recover), so the command line and the benchmarks inject it.
 */
import { DataType, encode, makeGraph, makeModel, makeNode, makeTensor, makeValueInfo } from '../../core/onnx/index.ts';
import type { GramProductFactory } from '../../core/recover/layerProblem.ts';
import { createSession, float32Tensor } from './ortNode.ts';

/** A GramProductFactory running onnxruntime-node's MatMul on one thread (the caller's other work runs beside it). */
export const nodeGramProduct: GramProductFactory = async (gram, k, rows) => {
  const model = makeModel(makeGraph({
    node: [makeNode('MatMul', ['v', 'G'], ['y'])],
    input: [makeValueInfo('v', DataType.FLOAT, [rows, k])],
    output: [makeValueInfo('y', DataType.FLOAT, [rows, k])],
    initializer: [makeTensor('G', DataType.FLOAT, [k, k], gram)],
  }), { '': 13 });
  const session = await createSession(encode(model), 1);
  return {
    async multiply(v) {
      const out = await session.run({ v: float32Tensor(v, [rows, k]) });
      return out.y.data as Float32Array;
    },
    release: () => session.release(),
  };
};
