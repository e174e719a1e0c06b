/**
 * The NPU figure: a quantized model judged with its float parts (exclusions, ops left float) run in BF16,
 * as the Ryzen AI compiler runs float subgraphs (halfFloat/bfloat16.ts floatPartsAsBf16). The written model
 * keeps its float32 parts; this only measures what the NPU would compute. One routine for the command line's
 * `evaluate --npu-bf16`, the page's evaluation and the exclusion search, so they judge alike.
 */
import type { ModelProto } from '../onnx/model.ts';
import { floatPartsAsBf16 } from '../halfFloat/bfloat16.ts';
import { compareModels, type CompareOptions, type Comparison, type ComparisonRuntime } from './compareModels.ts';

/** What the NPU figure rounded and how the outputs compare (the report's `npu` input). */
export interface NpuFigure {
  /** Nodes of the quantized model that compute in float (run in BF16 on the NPU). */
  readonly floatNodes: number;
  readonly activations: number;
  readonly weights: number;
  readonly comparison: Comparison;
}

/** Compares `float` with `quantized` as the NPU runs it (output metrics only unless `options.layers`). */
export async function compareAsNpu(
  float: ModelProto,
  quantized: ModelProto,
  runtime: ComparisonRuntime,
  options: CompareOptions = {},
): Promise<NpuFigure> {
  const npu = floatPartsAsBf16(quantized);
  const comparison = await compareModels(float, npu.model, runtime, { layers: false, ...options });
  return { floatNodes: npu.nodes, activations: npu.summary.activations, weights: npu.summary.weights, comparison };
}

/** The report's `npu` field for a figure. */
export function npuReportInput(figure: NpuFigure) {
  return {
    floatNodes: figure.floatNodes,
    activations: figure.activations,
    weights: figure.weights,
    outputs: figure.comparison.outputs,
  };
}
