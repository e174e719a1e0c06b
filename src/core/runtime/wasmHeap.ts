/**
 * How much WebAssembly memory an onnxruntime-web session takes, so the page can refuse a model that
 * cannot fit before it starts work, instead of failing deep inside onnxruntime (or losing the tab).
 * Every onnxruntime-web build has a 4 GiB ceiling (wasm32). The heap a session needs was measured, not
 * guessed (bench suite `large-model`, bench/cases/largeModelWasm.ts: MLPs with external data, opened and
 * run once): 304 MiB of model → 555 MiB of heap, 1,009 → 1,674, 2,161 → 3,723, and 2,479 failed to open.
 * A line through the smallest and largest that opened, 1.71 bytes of heap per byte of model plus 36 MiB,
 * is at or above every measurement (the weights, onnxruntime's repacked MatMul weights while it builds the
 * session, the arena). Pure arithmetic: no runtime is imported.
 */
const MiB = 2 ** 20;

/** Room kept for one run's activations: the calibration runner's output budget (RUN_OUTPUT_BUDGET_BYTES in core/calibrate/runner.ts). */
const ACTIVATION_ROOM_BYTES = 256 * MiB;

/** WebAssembly's 32-bit address space: the most memory one onnxruntime-web instance can have. */
export const WASM_HEAP_LIMIT_BYTES = 4 * 2 ** 30;

/** Heap bytes per byte of model, and the fixed part (measured; see the header). */
export const HEAP_PER_MODEL_BYTE = 1.71;
export const HEAP_FIXED_BYTES = 36 * MiB;

/** WebAssembly memory one session over a model of `modelBytes` (the .onnx and its data files) takes, in bytes. */
export function sessionHeapBytes(modelBytes: number): number {
  return HEAP_PER_MODEL_BYTE * modelBytes + HEAP_FIXED_BYTES;
}

/**
 * Whether sessions over models of these sizes, open together in one worker, fit under the ceiling with room
 * for one run's exposed activations (the calibration runner's output budget).
 */
export function fitsWasmHeap(...modelBytes: number[]): boolean {
  return modelBytes.reduce((sum, b) => sum + sessionHeapBytes(b), 0) + ACTIVATION_ROOM_BYTES <= WASM_HEAP_LIMIT_BYTES;
}

/** The largest model (bytes, .onnx and data together) one session of the page can open. */
export const PAGE_MODEL_LIMIT_BYTES = Math.floor((WASM_HEAP_LIMIT_BYTES - HEAP_FIXED_BYTES - ACTIVATION_ROOM_BYTES) / HEAP_PER_MODEL_BYTE);
