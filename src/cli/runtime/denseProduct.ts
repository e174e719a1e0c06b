/**
 * The recovery steps' float64 matrix product (core/recover/denseProduct.ts) on onnxruntime-node: one session on the
 * double MatMul model, opened on first use and kept for the process (every layer of every run shares it), on one
 * thread like the optimizers' Gram product. About 20× the TypeScript loops' speed (bench/README.md, suite finetune-cost).
 */
import { DENSE_A, DENSE_B, DENSE_OUTPUT, denseProductModel, type DenseProduct } from '../../core/recover/denseProduct.ts';
import { createSession, type NodeSession } from './ortNode.ts';

let session: Promise<NodeSession> | undefined;

export const nodeDenseProduct: DenseProduct = async (a, b, m, k, n) => {
  const s = await (session ??= createSession(denseProductModel(), 1));
  const out = await s.run({ [DENSE_A]: { type: 'float64', data: a, dims: [m, k] }, [DENSE_B]: { type: 'float64', data: b, dims: [k, n] } });
  return out[DENSE_OUTPUT].data as Float64Array;
};
