/**
 * Whether a model has the blocks the transformer rules (enableNpuTransformer) and SmoothQuant work on: a
 * Softmax, a LayerNormalization or Gelu op, a MatMul between two computed tensors, or an element-wise
 * function written out as several nodes (quantize/fusedFunctions.ts). The ladder adds its attention rungs
 * only for such models, so a plain CNN climbs as before.
 */
import { buildGraphIndex } from '../onnx/graphIndex.ts';
import type { ModelProto } from '../onnx/model.ts';
import { findFusedFunctions } from './fusedFunctions.ts';

export function hasAttentionBlocks(model: ModelProto): boolean {
  const index = buildGraphIndex(model.graph!);
  const isConstant = (t: string) => index.initializers.has(t as never) || index.constants.has(t as never);
  const direct = index.nodes.some((n) => {
    const op = n.op_type ?? '';
    if (op === 'Softmax' || op === 'LayerNormalization' || op === 'Gelu') return true;
    return op === 'MatMul' && n.input.length >= 2 && !isConstant(n.input[0]) && !isConstant(n.input[1]);
  });
  return direct || findFusedFunctions(index, () => true).length > 0;
}
