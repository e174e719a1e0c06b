/**
 * One benchmark case, run in its own process so that its peak memory is its own: decode, index,
 * summarize and encode one model, printing one JSON line. Usage: onnxIo.ts <model.onnx>.
 */
import fs from 'node:fs';
import { buildGraphIndex, decode, encode, encodeParts, summarize } from '../../src/core/onnx/index.ts';

const target = process.argv[2];
const rssMB = () => process.memoryUsage().rss / 2 ** 20;

const bytes = new Uint8Array(fs.readFileSync(target));
globalThis.gc?.();
const baseline = rssMB();

function time<T>(fn: () => T, repeats: number): { value: T; ms: number } {
  let value = fn();
  const start = performance.now();
  for (let i = 0; i < repeats; i++) value = fn();
  return { value, ms: (performance.now() - start) / repeats };
}

const repeats = bytes.byteLength > 50e6 ? 3 : 10;
const decoded = time(() => decode(bytes), repeats);
const indexed = time(() => summarize(decoded.value, buildGraphIndex(decoded.value.graph!)), repeats);
const encoded = time(() => encode(decoded.value), repeats);
const parts = time(() => encodeParts(decoded.value), repeats);
const peak = process.resourceUsage().maxRSS / 1024;

console.log(
  JSON.stringify({
    model: target.split('/').pop(),
    bytes: bytes.byteLength,
    nodes: decoded.value.graph!.node.length,
    decodeMs: +decoded.ms.toFixed(2),
    indexAndSummaryMs: +indexed.ms.toFixed(2),
    encodeMs: +encoded.ms.toFixed(2),
    encodePartsMs: +parts.ms.toFixed(2),
    baselineRssMB: +baseline.toFixed(1),
    peakRssMB: +peak.toFixed(1),
  }),
);
