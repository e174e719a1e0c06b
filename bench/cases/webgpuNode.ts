/**
 * Calibration on WebGPU against WASM where there is a GPU and no browser (issue 34): the page's own runtime
 * (workers/runtime/ort.ts: onnxruntime-web's native WebGPU backend and its WASM one) in Node, with WebGPU from
 * Dawn's Node bindings (the `webgpu` npm package, given by path: it is not a dependency of the project).
 * For each model, a whole calibration (U8S8, MinMax: ranges as computed) of the first images is timed on:
 * WASM, WebGPU reading each exposed tensor back on its own (what the page did before), WebGPU with the outputs
 * packed into one read-back (what it does now), and Auto (the timed probe, as the page decides). Each run's
 * ranges are compared with the WASM run's. One JSON line per model.
 * Usage: webgpuNode.ts <webgpu package index.js> <images dir> <images> <model path>...
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { decode } from '../../src/core/onnx/index.ts';
import { ModelCalibrator } from '../../src/core/calibrate/runner.ts';
import { sampleSource } from '../../src/core/calibrate/samples.ts';
import { rangesOf } from '../../src/core/calibrate/statistics.ts';
import { summarize, buildGraphIndex } from '../../src/core/onnx/index.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { getPreprocessPreset } from '../../src/core/preprocess/presets.ts';
import { validatePreprocess, type PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';
import { decodeImageFile } from '../../src/cli/images/decode.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { createWebRuntime } from '../../workers/runtime/ort.ts';

const [dawnPath, imagesDir, count, ...models] = process.argv.slice(2);
const { create, globals } = (await import(pathToFileURL(path.resolve(dawnPath)).href)) as { create(flags: string[]): unknown; globals: object };
Object.assign(globalThis, globals);
Object.defineProperty(globalThis, 'navigator', { value: { gpu: create([]), hardwareConcurrency: os.cpus().length }, configurable: true });

const PREPROCESS: Record<string, PreprocessSpec> = {
  'ultraface-rfb-320.onnx': getPreprocessPreset('ultraface'),
  'yolox-nano.onnx': getPreprocessPreset('yolo'),
  'ppocr-det.onnx': getPreprocessPreset('paddleocr-det'),
  'super-resolution-10.onnx': validatePreprocess({ colorSpace: 'Y', scale: 1 / 255, mean: [0], std: [1], dims: { batch_size: 1 } }),
};

const adapter = await (globalThis.navigator as unknown as { gpu: { requestAdapter(): Promise<{ info: Record<string, unknown> } | null> } }).gpu.requestAdapter();
const info = adapter?.info ?? {};
console.log(JSON.stringify({ adapter: { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description, isFallbackAdapter: info.isFallbackAdapter } }));

const images = listImageFiles(imagesDir).files.slice(0, Number(count));
const config = getPreset('U8S8');
const threads = Math.min(4, os.cpus().length);
const withPacking = (r: Runtime, pack: boolean): Runtime => ({ createSession: (b, p) => r.createSession(b, p), packsOutputs: async () => pack });

for (const file of models) {
  const name = path.basename(file);
  const model = decode(fs.readFileSync(file));
  const summary = summarize(model, buildGraphIndex(model.graph!));
  const spec = PREPROCESS[name] ?? getPreprocessPreset('imagenet');
  const source = () => sampleSource(images.map((f) => ({ kind: 'image' as const, name: path.basename(f), file: f })), summary.inputs, spec, async (f: string) => decodeImageFile(f));
  const runs: [string, () => Runtime][] = [
    ['wasm', () => withPacking(createWebRuntime('wasm', threads), false)],
    ['webgpu-unpacked', () => withPacking(createWebRuntime('webgpu', threads), false)],
    ['webgpu-packed', () => createWebRuntime('webgpu', threads)],
    ['auto', () => createWebRuntime('auto', threads)],
  ];
  const row: Record<string, unknown> = { model: name, images: images.length, threads };
  let reference: Map<string, { min: number; max: number }> | null = null;
  for (const [label, make] of runs) {
    const calibrator = new ModelCalibrator(model, make());
    const start = performance.now();
    try {
      const outcome = await calibrator.calibrate(source(), config, () => false, () => undefined);
      const seconds = (performance.now() - start) / 1000;
      const ranges = rangesOf(outcome.states);
      reference ??= ranges;
      let largest = 0;
      for (const [t, r] of reference) {
        const o = ranges.get(t);
        if (!o) continue;
        const scale = Math.max(Math.abs(r.min), Math.abs(r.max), 1e-6);
        largest = Math.max(largest, Math.abs(o.min - r.min) / scale, Math.abs(o.max - r.max) / scale);
      }
      row[label] = { seconds: +seconds.toFixed(2), backend: outcome.backend.kind, why: outcome.backend.chosenBecause ?? outcome.backend.fallbackReason, largestRangeDifference: largest, tensors: ranges.size };
    } catch (e) {
      row[label] = { error: e instanceof Error ? e.message.slice(0, 300) : String(e) };
    } finally {
      await calibrator.release();
    }
    console.error(`${name} ${label}: ${JSON.stringify(row[label])}`);
  }
  console.log(JSON.stringify(row));
}
process.exit(0);
