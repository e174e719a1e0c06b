/**
 * The ops onnxruntime's CPU provider fuses with the DequantizeLinear before them and the QuantizeLinear after
 * them into an integer kernel at its default graph optimization ('all'; 'extended' and up): QLinearConv,
 * QLinearMatMul / MatMulIntegerToFloat, QGemm, and the com.microsoft QLinearAdd, QLinearMul, QLinearConcat,
 * QLinearAveragePool, QLinearGlobalAveragePool, QLinearLeakyRelu, QLinearSigmoid, QLinearSoftmax and
 * QLinearWhere (onnxruntime's qdq_selector_action_transformer.cc, 1.30). Every one of those kernels takes its
 * scales as tensor(float) only, but the selectors that pick the Q/DQ groups (qdq_selectors.cc) never look at
 * the scales' type: a group with float16 scales is fused anyway and the session refuses the fused node
 * ("Type 'tensor(float16)' of input parameter (…_scale) of operator (QLinearConcat) … is invalid").
 * The ops whose Q/DQ pair onnxruntime only drops (Reshape, Transpose, MaxPool, Resize, Slice, …) run on the
 * integer codes and take float16 scales. The float16 writer (halfFloat/float16.ts) reads this list.
 */
import type { NodeProto } from '../onnx/model.ts';

const QLINEAR_FUSED_OPS: ReadonlySet<string> = new Set([
  'Conv',
  'MatMul',
  'Gemm',
  'Add',
  'Mul',
  'Concat',
  'Where',
  'AveragePool',
  'GlobalAveragePool',
  'LeakyRelu',
  'Sigmoid',
  'Softmax',
]);

/** Whether onnxruntime's CPU provider may fuse this node with its Q/DQ into a kernel that takes float32 scales only. */
export function fusedIntoFloat32ScaleKernel(node: NodeProto): boolean {
  return (node.domain ?? '') === '' && QLINEAR_FUSED_OPS.has(node.op_type ?? '');
}
