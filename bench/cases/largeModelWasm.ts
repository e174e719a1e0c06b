// ORT-web (WASM, the page's runtime) in Node: open a session over a model with external data and run it; print memory.
/**
 * The page's runtime (onnxruntime-web, WASM) on a model with external data, in Node: the same WebAssembly
 * build with the same 4 GiB ceiling. Prints the WASM heap's size once the session is open and after one
 * run (the heap never shrinks, so that is its peak): what the page's limit is measured from. The session is
 * opened as the page opens one with external data, without repacking MatMul weights.
 * Usage: node --import tsx bench/cases/largeModelWasm.ts <bytes>   (an MLP of that size, bench/largeModel.ts, removed after)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeLargeModel } from '../largeModel.ts';
import * as ort from 'onnxruntime-web';
import { readModelFile } from '../../src/cli/modelFile.ts';
import { sessionModel } from '../../src/core/onnx/index.ts';
// The module makes its memory with the WebAssembly.Memory constructor; keep a handle on it to read its size.
const memories: WebAssembly.Memory[] = [];
const Original = WebAssembly.Memory;
(WebAssembly as { Memory: unknown }).Memory = function (descriptor: WebAssembly.MemoryDescriptor) {
  const m = new Original(descriptor);
  memories.push(m);
  return m;
};
const heapMB = () => Math.max(0, ...memories.map((m) => m.buffer.byteLength)) / 2 ** 20;
ort.env.wasm.numThreads = 1;
const mb = (b: number) => Math.round(b / 2 ** 20);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qs-bench-wasm-'));
const files = writeLargeModel(dir, Number(process.argv[2]));
const { model } = readModelFile(files.onnx);
fs.rmSync(dir, { recursive: true, force: true });
const s = sessionModel(model, { externalFrom: 0 });
const weightsMiB = mb(s.externalData.reduce((n, f) => n + f.data.byteLength, 0) + s.bytes.byteLength);
const t = performance.now();
try {
  // As the page opens a session with external data (workers/runtime/ort.ts): no repacked copy of MatMul weights.
  // QS_BENCH_REPACK=1 measures onnxruntime's default instead (the page's regime for models under 1 GiB).
  const repack = process.env.QS_BENCH_REPACK === '1';
  const session = await ort.InferenceSession.create(s.bytes, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'basic',
    externalData: s.externalData.map((f) => ({ path: f.path, data: f.data })),
    ...(repack ? {} : { extra: { session: { disable_prepacking: '1' } } }),
  });
  const heapSession = heapMB();
  const out = await session.run({ image: new ort.Tensor('float32', new Float32Array(3072).fill(0.5), [1, 3, 32, 32]) });
  const r3 = process.memoryUsage();
  const heapRun = heapMB();
  const finite = Array.from(out.logits.data as Float32Array).every(Number.isFinite);
  console.log(
    JSON.stringify({
      weightsMiB,
      ok: finite,
      heapSessionMiB: heapSession,
      heapRunMiB: heapRun,
      sessionS: +((performance.now() - t) / 1000).toFixed(1),
      rssMiB: mb(r3.rss),
      error: '',
    }),
  );
} catch (e) {
  console.log(
    JSON.stringify({
      weightsMiB,
      ok: false,
      heapSessionMiB: heapMB(),
      heapRunMiB: heapMB(),
      error: String(e).slice(0, 200),
    }),
  );
}
