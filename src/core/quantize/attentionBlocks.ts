/**
 * Whether a model has the blocks the transformer rules (enableNpuTransformer) and SmoothQuant work on: a
 * MatMul between two computed tensors (attention's Q·Kᵀ and softmax·V), a LayerNormalization or Gelu op,
 * or a LayerNorm or GELU written out as several nodes (quantize/fusedFunctions.ts). The ladder adds its
 * attention rungs only for such models, so a plain CNN climbs as before: a classifier's final Softmax, a
 * SiLU written as Sigmoid·Mul or a bias Add are no attention block.
 */
import { buildGraphIndex } from '../onnx/graphIndex.ts';
import type { ModelProto } from '../onnx/model.ts';
import { findFusedFunctions } from './fusedFunctions.ts';

/** Written-out functions that only transformer blocks hold. */
const TRANSFORMER_FUNCTIONS = new Set(['layernorm', 'gelu']);

export function hasAttentionBlocks(model: ModelProto): boolean {
  const index = buildGraphIndex(model.graph!);
  // Constant-derived tensors count as constants too (mnist's MatMul weight is a Reshape of an initializer).
  const constant = new Map<string, boolean>();
  const isConstant = (t: string): boolean => {
    if (index.initializers.has(t) || index.constants.has(t)) return true;
    const known = constant.get(t);
    if (known !== undefined) return known;
    const p = index.producer.get(t);
    constant.set(t, false); // a cycle or a graph input is not constant
    const value = p !== undefined && index.nodes[p].input.every((i) => i === '' || isConstant(i));
    constant.set(t, value);
    return value;
  };
  const direct = index.nodes.some((n) => {
    const op = n.op_type ?? '';
    if (op === 'LayerNormalization' || op === 'Gelu') return true;
    return op === 'MatMul' && n.input.length >= 2 && !isConstant(n.input[0]) && !isConstant(n.input[1]);
  });
  return direct || findFusedFunctions(index, () => true).some((f) => TRANSFORMER_FUNCTIONS.has(f.kind));
}
