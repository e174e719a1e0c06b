/**
 * Which onnxruntime judges a quantized model. The same QDQ file gives two figures: at graph optimization
 * 'basic' onnxruntime runs the model's own arithmetic, QuantizeLinear and DequantizeLinear as written (what the
 * studio's page runs: its onnxruntime-web sessions set 'basic'); at 'all', onnxruntime's own default in
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

/** One sentence saying what a figure at `level` is: "onnxruntime at graph optimization 'basic': …". */
export function graphOptimizationText(level: GraphOptimization): string {
  return level === 'basic'
    ? "onnxruntime at graph optimization 'basic': the model's own Q/DQ arithmetic, as the studio's page runs it (its sessions set 'basic')"
    : "onnxruntime at graph optimization 'all', its default in onnxruntime-node, -python and onnxruntime-web (WASM gave the same bits as node here): Q/DQ fused into int8 kernels";
}
