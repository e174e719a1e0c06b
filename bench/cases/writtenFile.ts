/**
 * The checks every model a bench case writes gets, as the product's rules ask: the file is written, onnxruntime-web
 * (WASM, one thread) loads it and runs it on one sample, and onnx.checker (Debian's python3-onnx) checks it where
 * its opset is at most 17 (that onnx knows no later opset). One routine for every case that writes a model.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as ortWeb from 'onnxruntime-web';
import { opsetOf, type ModelProto } from '../../src/core/onnx/index.ts';

type Feed = Readonly<Record<string, { readonly data: unknown; readonly dims: readonly number[] }>>;

/** Writes `bytes` (the encoding of `model`) to `file`, runs it in onnxruntime-web on `feed`, and checks it. */
export async function checkWrittenFile(
  file: string,
  model: ModelProto,
  bytes: Uint8Array,
  feed: Feed,
): Promise<{ webRuns: boolean; checker: boolean | string }> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  ortWeb.env.wasm.numThreads = 1;
  const web = await ortWeb.InferenceSession.create(bytes, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'basic',
  });
  const webFeed = Object.fromEntries(
    Object.entries(feed).map(([k, t]) => [k, new ortWeb.Tensor('float32', t.data as Float32Array, [...t.dims])]),
  );
  const webRuns = Object.keys(await web.run(webFeed)).length > 0;
  const checker =
    (opsetOf(model) ?? 0) <= 17
      ? (JSON.parse(
          execFileSync('/usr/bin/python3', [path.join(import.meta.dirname, '../../scripts/check_onnx.py'), file], {
            encoding: 'utf8',
          }).trim(),
        ).ok as boolean)
      : 'opset > 17';
  return { webRuns, checker };
}
