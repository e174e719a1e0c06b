/**
 * The BF16 preset as one step for every caller (the command line's `--config BF16`, the page's model
 * worker): the guide's "BF16 Quantization for CPU/GPU Validation" with Quark's BF16QDQToCast, on the float32
 * form of a float16 source, with the quantizer's report shape so the page, the evaluation and the report
 * read it like any quantization. The rounding itself is bfloat16.ts's; nothing here computes on values.
 */
import { buildGraphIndex } from '../onnx/graphIndex.ts';
import { opsetOf, type ModelProto } from '../onnx/model.ts';
import { summarize } from '../onnx/modelSummary.ts';
import { UnsupportedModelError } from '../onnx/errors.ts';
import type { QuantizeReport } from './quantizeReport.ts';
import { bf16Model, type Bf16Summary } from '../halfFloat/bfloat16.ts';
import { subgraphCoverage, subgraphWarning } from './subgraphCoverage.ts';
import { float16Nodes, float16ToFloat32 } from '../halfFloat/float16.ts';

/** The preset's name where the page and the command line offer it beside the integer presets. */
export const BF16_PRESET = 'BF16';

/** One line for the page's preset list. */
export const BF16_SUMMARY =
  'BF16 for CPU validation (Quark BF16QDQToCast): a Cast to bfloat16 and back where Q/DQ would go, as the NPU compiler computes BF16; no calibration needed';

/**
 * The with-cast BF16 model of a float model (float16 sources go through their float32 form first, as the
 * guide converts them) and a report: every node computes on bfloat16-rounded values, none stays float32.
 * Throws UnsupportedModelError for a model that is already quantized.
 */
export function quantizeBf16(source: ModelProto): { model: ModelProto; report: QuantizeReport; summary: Bf16Summary } {
  const index = buildGraphIndex(source.graph!);
  const state = summarize(source, index).quantization;
  if (state.state !== 'float')
    throw new UnsupportedModelError(`the model is already quantized (${state.ops.join(', ')}): give the float model`);
  const half = float16Nodes(source).size > 0;
  const { model, summary } = bf16Model(half ? float16ToFloat32(source) : source);
  const subgraphs = subgraphCoverage(index);
  const before = opsetOf(source) ?? 1;
  const after = opsetOf(model) ?? before;
  const report: QuantizeReport = {
    config: BF16_PRESET,
    opset: { before, after, qdqDomain: 'ai.onnx' },
    preparation: [
      ...(half ? ['float16 model converted to float32 first (convert_fp16_to_fp32)'] : []),
      ...(after !== before ? [`opset ${before} → ${after} (Cast to bfloat16 needs 13)`] : []),
    ],
    quantized: Array.from(index.order, (i) => ({
      id: index.ids[i],
      opType: index.nodes[i].op_type ?? '',
      family: 'bf16',
      precision: 'BF16',
    })),
    float: [],
    exclusions: [],
    counts: {
      nodes: index.nodes.length,
      quantized: index.nodes.length,
      float: 0,
      activationPairs: summary.activations,
      quantizedConstants: summary.weights,
    },
    precision: {
      activations: summary.activations,
      weights: summary.weights,
      wideActivations: [],
      wideWeights: [],
      unmatchedOverrides: [],
    },
    notFloat: [],
    warnings: subgraphs ? [subgraphWarning(subgraphs, 'rounds to bfloat16 in')!] : [],
    ...(subgraphs ? { subgraphs } : {}),
    bf16: summary,
  };
  return { model, report, summary };
}
