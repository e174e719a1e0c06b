/**
 * onnxruntime-web's WASM int8 kernels do not saturate, as measured (docs/NOTES.md, tests/wasm-int8-saturation.test.ts):
 * at graph optimization 'all' its fused QLinearMatMul and QLinearConv give the exact 32-bit sums where x86 CPU kernels
 * without VNNI saturate u8 × s8 pair sums in 16 bits (core/quantize/cpuKernelSafety.ts), and its WASM builds carry no
 * relaxed-SIMD instruction a CPU could lower to such a saturating one. A judge running onnxruntime-web therefore
 * measures nothing saturation-safe weights could change.
 */

/** Why a judge running onnxruntime-web measures no saturation-safe rung (a skipped rung's reason). */
export const WASM_INT8_KERNELS_EXACT =
  "onnxruntime-web's WASM int8 kernels add u8 × s8 products in 32 bits (measured: exact at 'all' and 'basic' where " +
  'x86 kernels without VNNI saturate), so saturation-safe weights change nothing this judge measures; qstudio ladder ' +
  'measures the rung on such CPUs';
