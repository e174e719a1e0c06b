/**
 * A float64 matrix product on a runtime, for the recovery steps' one-off dense work per layer: building the layer's
 * problem (G = AᵀA, the targets and c = TᵀA over the gathered rows, layerProblem.ts) and scoring integer codes
 * (V·G). In TypeScript these were about a fifth of AdaRound's CPU on the PP-OCRv4 detector (bench/README.md, suite
 * finetune-cost); onnxruntime's double MatMul does the same sums about 20× faster. Float64 keeps the results equal
 * to the TypeScript loops' up to the order of summation (rounding at 1e-16, not float32's 1e-7), so the optimizers
 * see the same problem. Injected like GramProductFactory, so this module stays runtime-free: it holds the type and
 * the model a runtime serves it with. Must not import a runtime.
 */
import { DataType, encode, makeGraph, makeModel, makeNode, makeValueInfo } from '../onnx/index.ts';

/** C = A·B, A m × k and B k × n, float64 row-major; C m × n. */
export type DenseProduct = (a: Float64Array, b: Float64Array, m: number, k: number, n: number) => Promise<Float64Array>;

export const DENSE_A = 'a';
export const DENSE_B = 'b';
export const DENSE_OUTPUT = 'c';

/** One MatMul in double with symbolic dimensions: one session serves every layer. Opset 13. */
export function denseProductModel(): Uint8Array {
  return encode(makeModel(makeGraph({
    node: [makeNode('MatMul', [DENSE_A, DENSE_B], [DENSE_OUTPUT])],
    input: [makeValueInfo(DENSE_A, DataType.DOUBLE, ['m', 'k']), makeValueInfo(DENSE_B, DataType.DOUBLE, ['k', 'n'])],
    output: [makeValueInfo(DENSE_OUTPUT, DataType.DOUBLE, ['m', 'n'])],
  }), { '': 13 }));
}

/** Below this many multiply-adds a product stays in TypeScript: a runtime call costs more (about 0.1 ms). */
export const DENSE_RUNTIME_MIN_WORK = 2 ** 20;
