/**
 * The tiny ONNX model a runtime serves the optimizers' inner product with (GramProduct, layerProblem.ts): y = v·G,
 * one MatMul with G (k × k) as its initializer, or two by its factor (GramFactor), `rows` row vectors of length k as
 * its input. Built once
 * per layer group; the command line (onnxruntime-node) and the recovery worker (onnxruntime-web) each only create
 * a session on it and run it. Must not import a runtime.
 */
import { DataType, encode, makeGraph, makeModel, makeNode, makeTensor, makeValueInfo } from '../onnx/index.ts';

/** The input fed each step: `rows` × k float32, row-major. */
export const GRAM_INPUT = 'v';
/** The output read back: v·G, `rows` × k float32. */
export const GRAM_OUTPUT = 'y';

/**
 * G given by a factor: G = AᵀA / n with A (n × k, row-major float32), the layer's n input rows [x_q, 1]. Where a layer
 * has fewer rows than half its k (the recognizer's 60 × 2880 convolution on 640 rows, its squeeze-excitation layers on
 * 16), v·Aᵀ·A / n costs 2nk multiply-adds per vector instead of k², and A is smaller than G.
 */
export interface GramFactor {
  readonly a: Float32Array;
  readonly n: number;
}

/**
 * The encoded model for G (k × k, row-major float32) and `rows` vectors per call, opset 13: one MatMul by G, or by
 * its factor (Aᵀ / n, then A).
 */
export function gramProductModel(gram: Float32Array | GramFactor, k: number, rows: number): Uint8Array {
  const input = [makeValueInfo(GRAM_INPUT, DataType.FLOAT, [rows, k])];
  const output = [makeValueInfo(GRAM_OUTPUT, DataType.FLOAT, [rows, k])];
  if (gram instanceof Float32Array) {
    return encode(
      makeModel(
        makeGraph({
          node: [makeNode('MatMul', [GRAM_INPUT, 'G'], [GRAM_OUTPUT])],
          input,
          output,
          initializer: [makeTensor('G', DataType.FLOAT, [k, k], gram)],
        }),
        { '': 13 },
      ),
    );
  }
  const { a, n } = gram;
  const scaledT = new Float32Array(k * n);
  for (let r = 0; r < n; r++) for (let i = 0; i < k; i++) scaledT[i * n + r] = a[r * k + i] / n;
  return encode(
    makeModel(
      makeGraph({
        node: [makeNode('MatMul', [GRAM_INPUT, 'At'], ['t']), makeNode('MatMul', ['t', 'A'], [GRAM_OUTPUT])],
        input,
        output,
        initializer: [makeTensor('At', DataType.FLOAT, [k, n], scaledT), makeTensor('A', DataType.FLOAT, [n, k], a)],
      }),
      { '': 13 },
    ),
  );
}
