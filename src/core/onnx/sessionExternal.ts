/**
 * From what size a runtime session gets a model's weights as external data rather than in one protobuf
 * (core/onnx/externalize.ts), on its own so that the page's memory arithmetic (core/runtime/wasmHeap.ts), which
 * depends on it, and the end-to-end specs that import that arithmetic do not load the protobuf schema.
 */

/**
 * Models whose tensors hold at least this many bytes go to sessions with external data. Below it one
 * encoded buffer is simpler and as fast; above it the encode would copy every weight once more, and a
 * little higher it would pass protobuf's limit. The page's runtime also stops repacking their MatMul
 * weights (workers/runtime/ort.ts), which changes the heap they need.
 */
export const SESSION_EXTERNAL_FROM_BYTES = 1024 ** 3;
