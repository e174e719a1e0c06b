/**
 * LayerNormalization (opset 17) as ONNX Runtime's QDQ quantizer treats it: the input and the output
 * quantized, the scale (γ, input 1) as a weight along its only axis, the bias (β, input 2) as a bias.
 * The normalisation itself runs in float between the Q/DQ pairs, as an NPU's fused op does.
 */
import type { OpRule } from './types.ts';

export const layerNormRule: OpRule = {
  family: 'layernorm',
  activationInputs: () => [0],
  weight: (node, ctx) => (ctx.isConstant(node.input[1] ?? '') ? { input: 1, axis: 0 } : undefined),
  bias: (node, ctx) => (node.input[2] && ctx.isConstant(node.input[2]) ? 2 : undefined),
  output: 'own',
};
