/**
 * Whether a model has the blocks the transformer rules (enableNpuTransformer) and SmoothQuant work on: a
 * MatMul between two computed tensors (attention's Q·Kᵀ and softmax·V), a LayerNormalization or Gelu op,
 * or a LayerNorm or GELU written out as several nodes (quantize/fusedFunctions.ts). The ladder adds its
 * attention rungs only for such models: a classifier's final Softmax, a SiLU written as Sigmoid·Mul or a bias Add
 * are no attention block. Models with activations written out as several nodes (`hasWrittenOutActivations`:
 * HardSwish as Add/Clip/Mul/Div, SiLU as Sigmoid·Mul) get the function rules alone (without SmoothQuant, which is
 * for transformer blocks): on 8-bit CNNs they measured better (bench/README.md, suite calibration-methods). A lone
 * two-node element-wise function (a box decoding's Mul/Add, an input normalisation) is no reason to.
 */
import { buildGraphIndex } from '../onnx/graphIndex.ts';
import type { ModelProto } from '../onnx/model.ts';
import { findFusedFunctions } from './fusedFunctions.ts';
import type { QuantConfig } from './config.ts';
import { QUANT_TYPES } from './numeric.ts';

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

/** The functions written out as several nodes (quantize/fusedFunctions.ts), counted by kind: what the function rules quantize as one op. */
export function writtenOutFunctions(model: ModelProto): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of findFusedFunctions(buildGraphIndex(model.graph!), () => true))
    counts.set(f.kind, (counts.get(f.kind) ?? 0) + 1);
  return counts;
}

/** Written-out activations, the kinds the function rules help 8-bit CNNs with. */
const ACTIVATION_FUNCTIONS = new Set(['hardswish', 'swish']);

/** Whether the model has activations written out as several nodes (HardSwish, SiLU): the ladder's function rungs. */
export function hasWrittenOutActivations(model: ModelProto): boolean {
  return [...writtenOutFunctions(model).keys()].some((k) => ACTIVATION_FUNCTIONS.has(k));
}

const ACTIVATION_NAMES: Record<string, string> = { hardswish: 'HardSwish', swish: 'SiLU' };

/**
 * The measured best 8-bit route on a CNN with written-out activations, in one sentence the command line's note and
 * the page's recovery card both give (each names its own switches): the PP-OCRv4 text detector, A8W8, 16 text scenes
 * to calibrate and tune on, 21 held-out scenes judged by onnxruntime-node (bench/README.md, detector-targets).
 */
export const FUNCTION_RULES_ROUTE =
  'on the PP-OCRv4 text detector (written-out HardSwish; A8W8, held out) the function rules with Sequential ranges measured 0.9688 per channel, ' +
  "and AdaRound (200 iterations) on top 0.9772 per channel, 0.9739 per tensor with CLE (Sequential alone: 0.9595 per channel, 0.9174 per tensor); neutral on YOLOX-nano's SiLU";

/**
 * The written-out activations of a model quantized at 8-bit activations without the function rules, as "24 HardSwish,
 * 1 SiLU", for a note that suggests the rules; null when there is nothing to suggest.
 */
export function functionRulesSuggestion(
  model: ModelProto,
  config: Pick<QuantConfig, 'enableNpuTransformer' | 'activationType'>,
): string | null {
  if (config.enableNpuTransformer || QUANT_TYPES[config.activationType].bits !== 8) return null;
  const counts = writtenOutFunctions(model);
  const parts = Object.entries(ACTIVATION_NAMES)
    .filter(([k]) => counts.has(k))
    .map(([k, name]) => `${counts.get(k)} ${name}`);
  return parts.length > 0 ? parts.join(', ') : null;
}
