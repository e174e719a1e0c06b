/**
 * Writes a float16 version of a shared fixture for the FP16 spec, made in code as the tests make theirs
 * (core float32ToFloat16: every float tensor float16, interface included, Resize's scales left float32):
 * `node --import tsx e2e/builders/float16Model.ts <fixture.onnx> OUT.onnx`, then prints the node ids of
 * the first nodes as JSON. Its own process because Playwright's loader does not take the core's schema.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildGraphIndex, decode, encode } from '../../src/core/onnx/index.ts';
import { float32ToFloat16 } from '../../src/core/halfFloat/float16.ts';

const [fixture, out] = process.argv.slice(2);
if (!fixture || !out) throw new Error('usage: float16Model.ts <fixture.onnx> OUT.onnx');
const source = decode(
  new Uint8Array(fs.readFileSync(path.resolve(import.meta.dirname, '../../../shared/fixtures/models', fixture))),
);
const half = float32ToFloat16(source);
fs.writeFileSync(out, encode(half));
const index = buildGraphIndex(half.graph!);
console.log(JSON.stringify({ ids: Array.from(index.order.slice(0, 12), (i) => index.ids[i]) }));
