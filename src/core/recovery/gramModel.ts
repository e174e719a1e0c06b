/**
 * The tiny ONNX model a runtime serves the optimizers' inner product with (GramProduct, layerProblem.ts): one
 * MatMul, y = v·G, with G (k × k) as its initializer and `rows` row vectors of length k as its input. Built once
 * per layer group; the command line (onnxruntime-node) and the recovery worker (onnxruntime-web) each only create
 * a session on it and run it. Must not import a runtime.
 */
import { DataType, encode, makeGraph, makeModel, makeNode, makeTensor, makeValueInfo } from '../onnx/index.ts';

/** The input fed each step: `rows` × k float32, row-major. */
export const GRAM_INPUT = 'v';
/** The output read back: v·G, `rows` × k float32. */
export const GRAM_OUTPUT = 'y';

/** The encoded MatMul model for G (k × k, row-major float32) and `rows` vectors per call; opset 13. */
export function gramProductModel(gram: Float32Array, k: number, rows: number): Uint8Array {
  const model = makeModel(
    makeGraph({
      node: [makeNode('MatMul', [GRAM_INPUT, 'G'], [GRAM_OUTPUT])],
      input: [makeValueInfo(GRAM_INPUT, DataType.FLOAT, [rows, k])],
      output: [makeValueInfo(GRAM_OUTPUT, DataType.FLOAT, [rows, k])],
      initializer: [makeTensor('G', DataType.FLOAT, [k, k], gram)],
    }),
    { '': 13 },
  );
  return encode(model);
}
