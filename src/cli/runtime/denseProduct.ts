/**
 * The recovery steps' float64 matrix product (core/recovery/denseProduct.ts) on onnxruntime-node: one session on the
 * double MatMul model, opened on first use and kept for the process (every layer of every run shares it), on one
 * thread like the optimizers' Gram product. About 20× the TypeScript loops' speed (bench/README.md, suite finetune-cost).
 */
import { runtimeDenseProduct, type DenseProduct } from '../../core/recovery/denseProduct.ts';
import { ortNodeRuntime } from './ortNode.ts';

export const nodeDenseProduct: DenseProduct = runtimeDenseProduct(ortNodeRuntime(1)).product;
