/**
 * What a quantization rule says about one op family: which inputs carry activations, which input is
 * the weight (and along which axis its channels run), which is the bias, and how outputs are
 * quantized. Rules describe; the planner decides and the writer edits the graph.
 */
import type { NodeProto } from '../../onnx/model.ts';

export interface RuleContext {
  /** Whether a tensor is a constant (an initializer) rather than computed. */
  isConstant(name: string): boolean;
  /** Rank of a constant tensor (undefined for computed tensors). */
  constantRank(name: string): number | undefined;
}

export type OutputMode =
  /** Outputs get their own calibrated range. */
  | 'own'
  /** Outputs share input 0's parameters (data movement, max pooling): same values, same grid. */
  | 'shareInput';

export interface OpRule {
  /** A short family name for reports ('conv', 'gemm', …). */
  readonly family: string;
  /** Input positions whose tensors are activations (constants there are quantized per tensor). */
  activationInputs(node: NodeProto, ctx: RuleContext): number[];
  /** The weight input and the axis of its output channels, when the op has a constant weight. */
  weight?(node: NodeProto, ctx: RuleContext): { input: number; axis: number } | undefined;
  /** The bias input, quantized from the input and weight scales (int32) or as a weight. */
  bias?(node: NodeProto, ctx: RuleContext): number | undefined;
  readonly output: OutputMode;
  /** Relu and Clip: when right after an op that accepts it, no Q/DQ separates the two (they fuse). */
  readonly foldsIntoProducer?: boolean;
  /** Conv, Gemm, MatMul, Add: an activation after them may fold into their output range. */
  readonly acceptsFoldedActivation?: boolean;
  /** An output range the op guarantees (Softmax: [0, 1]), used instead of the calibrated one under enableNpuTransformer. */
  readonly outputRange?: { readonly min: number; readonly max: number };
}

/** An attribute's int value, or a default. */
export function intAttr(node: NodeProto, name: string, fallback: number): number {
  const a = node.attribute.find((x) => x.name === name);
  return a?.i !== undefined && a.i !== null ? Number(a.i) : fallback;
}

/** The inputs of a node that are present (optional inputs may be ''). */
export function presentInputs(node: NodeProto): number[] {
  return node.input.flatMap((name, i) => (name ? [i] : []));
}
