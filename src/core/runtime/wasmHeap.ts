/**
 * How much WebAssembly memory an onnxruntime-web session takes, so the page can refuse a model that
 * cannot fit before it starts work, instead of failing deep inside onnxruntime (or losing the tab).
 * Every onnxruntime-web build has a 4 GiB ceiling (wasm32). The heap a session needs was measured, not
 * guessed (bench suite `large-model`, bench/cases/largeModelWasm.ts: MLPs with external data, opened and
 * run once), in two regimes, as the page's runtime opens sessions (workers/runtime/ort.ts):
 *  - models under SESSION_EXTERNAL_FROM_BYTES: one protobuf, MatMul/Gemm weights repacked by onnxruntime.
 *    304 MiB of model → 555 MiB of heap, 500 → 970, 1,009 → 1,674, 2,161 → 3,723, and 2,479 still opened
 *    with the heap at exactly the 4 GiB ceiling. The line through 304 and 2,161 MiB, 1.71 bytes of heap per
 *    byte of model plus 36 MiB (the weights, the repacked copy, the arena), is what this regime uses; the
 *    heap grows in steps, so single points lie off it (500 MiB → 970).
 *  - larger models: external data and `session.disable_prepacking` (no repacked copy). 1,009 MiB → 1,050,
 *    2,161 → 2,203: one byte of heap per byte of model plus 41 MiB.
 * Pure arithmetic: no runtime is imported.
 */
import { SESSION_EXTERNAL_FROM_BYTES } from '../onnx/sessionExternal.ts';

const MiB = 2 ** 20;

/** Room kept for one run's activations: the calibration runner's output budget (RUN_OUTPUT_BUDGET_BYTES in core/calibrate/run/runner.ts). */
const ACTIVATION_ROOM_BYTES = 256 * MiB;

/** WebAssembly's 32-bit address space: the most memory one onnxruntime-web instance can have. */
export const WASM_HEAP_LIMIT_BYTES = 4 * 2 ** 30;

/** Heap bytes per byte of model, and the fixed part, for a model whose weights onnxruntime repacks (measured; see the header). */
export const HEAP_PER_MODEL_BYTE = 1.71;
export const HEAP_FIXED_BYTES = 36 * MiB;
/** The same for a model of SESSION_EXTERNAL_FROM_BYTES or more, opened with external data and without repacking. */
export const LARGE_HEAP_PER_MODEL_BYTE = 1.0;
export const LARGE_HEAP_FIXED_BYTES = 41 * MiB;

/** WebAssembly memory one session over a model of `modelBytes` (the .onnx and its data files) takes, in bytes. */
export function sessionHeapBytes(modelBytes: number): number {
  return modelBytes >= SESSION_EXTERNAL_FROM_BYTES
    ? LARGE_HEAP_PER_MODEL_BYTE * modelBytes + LARGE_HEAP_FIXED_BYTES
    : HEAP_PER_MODEL_BYTE * modelBytes + HEAP_FIXED_BYTES;
}

/**
 * Whether sessions over models of these sizes, open together in one worker, fit under the ceiling with room
 * for one run's exposed activations (the calibration runner's output budget).
 */
export function fitsWasmHeap(...modelBytes: number[]): boolean {
  return modelBytes.reduce((sum, b) => sum + sessionHeapBytes(b), 0) + ACTIVATION_ROOM_BYTES <= WASM_HEAP_LIMIT_BYTES;
}

/** The largest model (bytes, .onnx and data together) one session of the page can open (a large one: the second regime). */
export const PAGE_MODEL_LIMIT_BYTES = Math.floor(
  (WASM_HEAP_LIMIT_BYTES - LARGE_HEAP_FIXED_BYTES - ACTIVATION_ROOM_BYTES) / LARGE_HEAP_PER_MODEL_BYTE,
);

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(2)} GiB`;

/**
 * Why sessions over these models cannot be open together in one page worker (each `[what, bytes]`), in
 * words for a ModelTooLargeError; null when they fit. `work` says what runs them side by side.
 */
export function heapShortfall(
  work: string,
  models: readonly (readonly [what: string, bytes: number])[],
): string | null {
  const bytes = models.map(([, b]) => b);
  if (fitsWasmHeap(...bytes)) return null;
  const list = models.map(([what, b]) => `${what} (${gib(b)})`).join(' and ');
  const heap = bytes.reduce((sum, b) => sum + sessionHeapBytes(b), 0);
  return `${list} run side by side in ${work}; onnxruntime-web would need about ${gib(heap)} of WebAssembly memory for them, and the page has ${gib(WASM_HEAP_LIMIT_BYTES)}.`;
}
