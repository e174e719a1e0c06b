/**
 * Which onnxruntime judges a quantized model. The same QDQ file gives two figures: at graph optimization
 * 'basic' onnxruntime runs the model's own arithmetic, QuantizeLinear and DequantizeLinear as written (the level
 * the layer-wise figures need: an exposed tensor keeps its node out of a fusion); at 'all', onnxruntime's own default in
 * onnxruntime-node, -python and onnxruntime-web alike (measured: web's WASM default gave the same bits as node's
 * 'all' on UltraFace and MNIST), the CPU provider fuses Q/DQ groups into int8 kernels (QLinearConv, QLinearAdd,
 * QLinearConcat, QGemm, ...), whose 8-bit products also saturate on x86 CPUs without VNNI
 * (core/quantize/cpuKernelSafety.ts). The level is a property of the injected runtime (a
 * ComparisonRuntime says which it is); this module only names the levels and says what each means, for the
 * command line, the reports and the page. Must not import a runtime.
 */

export const GRAPH_OPTIMIZATIONS = ['basic', 'all'] as const;

/** onnxruntime's graph optimization level a runtime's sessions run at. */
export type GraphOptimization = (typeof GRAPH_OPTIMIZATIONS)[number];

/** The level every figure of the studio is at, unless a runtime says otherwise. */
export const DEFAULT_GRAPH_OPTIMIZATION: GraphOptimization = 'basic';

/** True when `text` names a level. */
export function isGraphOptimization(text: string): text is GraphOptimization {
  return (GRAPH_OPTIMIZATIONS as readonly string[]).includes(text);
}

/** A short label of `level` for headings and cards. */
export function graphOptimizationLabel(level: GraphOptimization): string {
  return level === 'basic'
    ? "the model's own Q/DQ arithmetic ('basic')"
    : "onnxruntime's default options ('all', fused int8 kernels)";
}

/** One sentence saying what a figure at `level` is: "onnxruntime at graph optimization 'basic': …". */
export function graphOptimizationText(level: GraphOptimization): string {
  return level === 'basic'
    ? "onnxruntime at graph optimization 'basic': the model's own Q/DQ arithmetic, every QuantizeLinear and DequantizeLinear run as written"
    : "onnxruntime at graph optimization 'all', its default in onnxruntime-node, -python and onnxruntime-web (WASM gave the same bits as node here): Q/DQ fused into int8 kernels";
}
