/**
 * What a quantization run did, as data: the JSON summary the command line writes beside the model,
 * and what the page and the report show. Node ids are the stable ids of the float model as loaded.
 */
import type { NodeId } from '../onnx/model.ts';
import type { SubgraphCoverage } from './subgraphCoverage.ts';

export interface QuantizeReport {
  config: string;
  opset: { before: number; after: number; qdqDomain: 'ai.onnx' | 'com.microsoft' };
  /** What graph preparation changed (BatchNormalization folds, opset adapters, …). */
  preparation: string[];
  /** `precision`: "A8W8", "A16W8", "A8W16", "A8" (see precision.ts). */
  quantized: {
    id: NodeId;
    opType: string;
    family: string;
    precision: string;
    /**
     * The node of the model as loaded that this one comes from, where preparation made it around another (the
     * Flatten and Reshape of a Softmax raised to opset 13): exclusions name that node, not this one.
     */
    source?: NodeId;
  }[];
  float: { id: NodeId; opType: string; reason: string }[];
  /**
   * Nodes of the model as loaded that graph preparation merged into another (a BatchNormalization into the Conv before
   * it), with that node's id: they are computed, and quantized, as part of it. Absent where nothing was merged.
   */
  folded?: { id: NodeId; into: NodeId }[];
  exclusions: { rule: string; ids: NodeId[] }[];
  counts: { nodes: number; quantized: number; float: number; activationPairs: number; quantizedConstants: number };
  /** Mixed precision: the activation tensors and weights quantized wider than the configuration's types. */
  precision: {
    /** Activation tensors with a Q/DQ pair, and weight tensors quantized, in all. */
    activations: number;
    weights: number;
    wideActivations: string[];
    wideWeights: string[];
    /** TensorQuantOverrides entries that named no quantized tensor (a typo, or a tensor graph preparation folded). */
    unmatchedOverrides: string[];
  };
  /**
   * Tensors at quantized nodes that got no Q/DQ because they are not known to be float32: int64 shapes
   * and indices, booleans, and tensors whose element type neither the file nor the op's schema tells
   * ('unknown').
   */
  notFloat: { tensor: string; elemType: string }[];
  warnings: string[];
  /**
   * With config.saturationSafeWeights: the weights given 7-bit channels so that onnxruntime's x86 CPU int8
   * kernels (no VNNI) cannot saturate on them; every other weight kept 8 bits.
   */
  saturationSafeWeights?: string[];
  /**
   * Weights whose codes, as written, could saturate onnxruntime's x86 CPU int8 kernels (no VNNI) at its default
   * graph optimization 'all' (cpuKernelSafety.ts); absent when none could. The studio's own figures (graph
   * optimization 'basic') do not see it: `qstudio evaluate` measures it, saturationSafeWeights avoids it.
   */
  saturationRisk?: string[];
  /**
   * Models with control flow (If, Loop, Scan): the nodes inside their subgraphs, how many of them were quantized
   * and the compute left float with why (warnings say so). Absent when the model has none.
   */
  subgraphs?: SubgraphCoverage;
  /** FP16 source models: how many nodes stayed float16, and the type of the Q/DQ scales around them. */
  float16?: { keptNodes: number; scales: 'float16' | 'float32' };
  /** The BF16 preset (with-cast): float32 activations and weights that pass through bfloat16. */
  bf16?: { activations: number; weights: number };
}

/**
 * Every node a run quantized: the main graph's and, where EnableSubgraph entered them, those inside If/Loop/Scan
 * bodies by scoped id (`holder/then_branch/Conv_3`, as the per-layer rows name them): what the exclusion searches try.
 */
export function quantizedNodeIds(report: Pick<QuantizeReport, 'quantized' | 'subgraphs'>): Set<string> {
  return new Set<string>([...report.quantized.map((q) => q.id), ...(report.subgraphs?.quantizedNodes ?? [])]);
}
