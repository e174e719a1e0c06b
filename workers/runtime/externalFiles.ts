/**
 * A model's external-data files inside a worker. The page hands every worker the user's `File` objects
 * (a File crosses postMessage as a reference, without its bytes), and each worker reads what it needs
 * here. That is the only way a data file of 2 GiB or more reaches a worker in Chromium: `Blob.arrayBuffer()`
 * refuses such a blob (NotReadableError) and postMessage refuses such an ArrayBuffer ("size exceeds the
 * supported range"), while slices of it read fine into one large buffer made here.
 *
 * The buffer read is the worker's one copy of the weights: the decoded tensors are views into it, and
 * onnxruntime-web is handed views of it as its `externalData` (core/onnx/externalize.ts), so no other copy
 * is made in JavaScript (onnxruntime copies the weights into its WebAssembly heap).
 */

/** Bytes read at a time: well under Chromium's 2 GiB ceiling for one read, large enough to be fast. */
export const READ_PIECE_BYTES = 256 * 2 ** 20;

/** The whole blob's bytes, read in pieces into one buffer (any size the JavaScript engine can allocate). */
export async function readBlob(blob: Blob, pieceBytes = READ_PIECE_BYTES): Promise<Uint8Array> {
  if (blob.size <= pieceBytes) return new Uint8Array(await blob.arrayBuffer());
  const out = new Uint8Array(blob.size);
  for (let at = 0; at < blob.size; at += pieceBytes) {
    out.set(new Uint8Array(await blob.slice(at, Math.min(blob.size, at + pieceBytes)).arrayBuffer()), at);
  }
  return out;
}

/** The external-data files a worker was given (by the name the model's tensors use), read into memory. */
export async function readExternalFiles(
  files: Readonly<Record<string, Blob>> | undefined,
): Promise<Map<string, Uint8Array>> {
  const entries = Object.entries(files ?? {});
  const read: [string, Uint8Array][] = [];
  for (const [name, blob] of entries) read.push([name, await readBlob(blob)]); // one at a time: the peak is one file's pieces
  return new Map(read);
}
