/**
 * Calibration on WebGPU against WASM on a machine with a GPU and no browser (issue 34). WASM is the page's own
 * runtime (workers/runtime/ort.ts, onnxruntime-web's WASM backend, run in Node). WebGPU is onnxruntime's native
 * WebGPU execution provider (the same C++ EP the page's `onnxruntime-web/webgpu` compiles to WebAssembly), as
 * onnxruntime-node bundles it with Dawn: what the GPU computes is the same, the browser's JS/WASM bridge to it is
 * not measured. (onnxruntime-web's own WebGPU in Node through Dawn's `webgpu` package hung on its first read-back.)
 *
 * For each model, a whole calibration (U8S8, MinMax: ranges as computed) over the first images, timed on:
 * WASM with the statistics computed in the graph (run/reduceInGraph.ts, the page's MinMax path) and with every tensor
 * exposed; onnxruntime-node's CPU EP; WebGPU in the graph (four small outputs a run read back); WebGPU exposed, each
 * tensor read back on its own (the page before issue 34); WebGPU exposed with the outputs packed into one read-back
 * (core/calibrate/run/packOutputs.ts, what the histogram methods and the held-in choice still take); the page's Auto
 * (ort.ts measuredSession) between WASM and packed WebGPU on a model it has not measured ('auto': WASM first, WebGPU
 * started only where it can pay for its start-up, the job's own samples timing both); and Auto again on the same
 * model, deciding from the costs it cached ('auto-again'). With the costs Auto measured (session, first run,
 * steady run of each backend) and what it decided. Ranges are compared with the WASM run's. One JSON line per model.
 * The WebGPU start-up estimate carries from model to model as on the page (cautiousPrior: the first model uses REAL_GPU_PRIOR).
 * Each run is repeated REPEATS times (default 1) on a fresh calibrator (session creation included): the median seconds.
 * Usage: webgpuNode.ts <images dir> <images> <model path>...   (WEBGPU_RUNS=wasm,auto,... picks the runs)
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';
import { decode, summarize, buildGraphIndex } from '../../src/core/onnx/index.ts';
import { asSessionModel } from '../../src/core/onnx/externalize.ts';
import {
  ModelCalibrator,
  RUN_OUTPUT_BUDGET_BYTES,
  type CalibratorOptions,
} from '../../src/core/calibrate/run/runner.ts';
import { median } from '../suites/calibrationSpeed.ts';
import { rangesOf } from '../../src/core/calibrate/run/statistics.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { getPreprocessPreset } from '../../src/core/preprocess/presets.ts';
import { validatePreprocess, type PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import type { BackendInfo, InferenceRunner, Runtime, RunTensor } from '../../src/core/runtime/session.ts';
import { listImageFiles } from '../../src/cli/images/listImages.ts';
import { createWebRuntime, measuredSession } from '../../workers/runtime/ort.ts';
import { probeKey, readCosts } from '../../workers/runtime/probeCache.ts';
import { ortNodeRuntime } from '../../src/cli/runtime/ortNode.ts';
import { imageFileSource } from '../../src/cli/calibration/calibrateOnImages.ts';

const [imagesDir, count, ...models] = process.argv.slice(2);
const cores = os.cpus().length;
// onnxruntime-web's WASM threads need a browser's workers (in Node its threaded start fails): WASM runs one thread
// here, where the page would give each of its two calibration workers up to four. onnxruntime-node's CPU EP with
// four threads stands in as the stronger CPU baseline (it is faster than the page's WASM).
const threads = 1;

const PREPROCESS: Record<string, PreprocessSpec> = {
  'mnist.onnx': validatePreprocess({ colorSpace: 'gray', scale: 1 / 255, mean: [0], std: [1] }),
  'ultraface-rfb-320.onnx': getPreprocessPreset('ultraface'),
  'yolox-nano.onnx': getPreprocessPreset('yolo'),
  'ppocr-det.onnx': validatePreprocess({
    ...getPreprocessPreset('paddleocr-det'),
    resize: 'stretch',
    dims: { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 320, 'p2o.DynamicDimension.2': 320 },
  }),
  'super-resolution-10.onnx': validatePreprocess({
    colorSpace: 'Y',
    scale: 1 / 255,
    mean: [0],
    std: [1],
    dims: { batch_size: 1 },
  }),
  'yunet-n-dynamic.onnx': validatePreprocess({
    ...getPreprocessPreset('bgr-255'),
    resize: 'stretch',
    dims: { batch: 1, height: 320, width: 320 },
  }),
};

/** onnxruntime-node's native WebGPU EP as a core Runtime (float sessions only: this bench calibrates). */
async function webGpuSession(bytes: Uint8Array): Promise<{ runner: InferenceRunner; backend: BackendInfo }> {
  const s = await ort.InferenceSession.create(bytes, {
    executionProviders: ['webgpu'],
    graphOptimizationLevel: 'basic',
    logSeverityLevel: 3,
  });
  return {
    runner: {
      inputNames: s.inputNames,
      outputNames: s.outputNames,
      async run(feeds, fetches) {
        const t: Record<string, ort.Tensor> = {};
        for (const [k, f] of Object.entries(feeds)) t[k] = new ort.Tensor(f.type, f.data, f.dims as number[]);
        const out = fetches ? await s.run(t, fetches as string[]) : await s.run(t);
        return Object.fromEntries(
          Object.entries(out).map(([k, v]) => [k, { type: v.type, data: v.data, dims: v.dims } as RunTensor]),
        );
      },
      release: () => s.release(),
    },
    backend: { kind: 'webgpu', threads: 0, fallbackReason: null, adapter: 'onnxruntime-node WebGPU EP (Dawn)' },
  };
}

const webgpu = (pack: boolean): Runtime => ({
  createSession: (b) => webGpuSession(asSessionModel(b).bytes),
  packsOutputs: async () => pack,
});
const wasm = (): Runtime => {
  const web = createWebRuntime('wasm', threads);
  return { createSession: (b, p) => web.createSession(b, p), packsOutputs: async () => false };
};
/** The page's Auto on this GPU (ort.ts measuredSession) between WASM and packed WebGPU; `seen` collects the session bytes. */
const DEVICE = 'bench|onnxruntime-node webgpu';
const auto = (seen: Uint8Array[]): Runtime => {
  const web = createWebRuntime('wasm', threads);
  return {
    async createSession(b, p, plan) {
      const bytes = asSessionModel(b).bytes;
      seen.push(bytes);
      const webgpu = () =>
        webGpuSession(bytes).catch((e: unknown) => ({
          failed: `WebGPU could not load the model (${e instanceof Error ? e.message : String(e)})`,
        }));
      return measuredSession({ wasm: () => web.createSession(b, p), webgpu }, bytes, DEVICE, plan?.runs ?? Infinity);
    },
    packsOutputs: async () => true,
  };
};

/** What Auto measured on the sessions it made (session, first and steady run of each backend, ms), where it cached them. */
async function costsOf(seen: Uint8Array[]) {
  for (const bytes of seen) {
    const c = await readCosts(await probeKey(bytes, DEVICE));
    if (c) return JSON.parse(JSON.stringify(c, (_k, v) => (typeof v === 'number' ? +v.toFixed(1) : v)));
  }
  return null;
}

const images = listImageFiles(imagesDir).files.slice(0, Number(count));
const config = getPreset('U8S8');
console.log(
  JSON.stringify({
    cpu: os.cpus()[0]?.model,
    cores,
    wasmThreads: threads,
    images: images.length,
    onnxruntime: ort.env.versions?.common,
  }),
);

for (const file of models) {
  const name = path.basename(file);
  const model = decode(fs.readFileSync(file));
  const summary = summarize(model, buildGraphIndex(model.graph!));
  const spec = PREPROCESS[name] ?? getPreprocessPreset('imagenet');
  const source = () => imageFileSource(images, summary.inputs, spec);
  const seen: Uint8Array[] = [];
  const exposed: CalibratorOptions = { statisticsInGraph: false };
  const all: [string, () => Runtime, CalibratorOptions?][] = [
    ['wasm', wasm],
    ['wasm-exposed', wasm, exposed],
    ['native-cpu-4-threads', () => ortNodeRuntime(Math.min(4, cores))],
    ['webgpu-in-graph', () => webgpu(true)],
    ['webgpu-unpacked', () => webgpu(false), exposed],
    ['webgpu-packed', () => webgpu(true), exposed],
    ['auto', () => auto(seen)],
    ['auto-again', () => auto(seen)],
  ];
  const wanted = process.env.WEBGPU_RUNS?.split(',');
  const runs = all.filter(([label]) => !wanted || wanted.includes(label));
  const row: Record<string, unknown> = { model: name };
  let reference: Map<string, { min: number; max: number }> | null = null;
  const repeats = Math.max(1, Number(process.env.REPEATS ?? 1));
  for (const [label, make, options] of runs) {
    const times: number[] = [];
    try {
      let outcome!: Awaited<ReturnType<ModelCalibrator['calibrate']>>;
      for (let r = 0; r < repeats; r++) {
        const calibrator = new ModelCalibrator(model, make(), RUN_OUTPUT_BUDGET_BYTES, options);
        const start = performance.now();
        try {
          outcome = await calibrator.calibrate(
            source(),
            config,
            () => false,
            () => undefined,
          );
          times.push((performance.now() - start) / 1000);
        } finally {
          await calibrator.release();
        }
      }
      const seconds = median(times);
      const ranges = rangesOf(outcome.states);
      reference ??= ranges;
      let largest = 0;
      for (const [t, r] of reference) {
        const o = ranges.get(t);
        if (!o) continue;
        const scale = Math.max(Math.abs(r.min), Math.abs(r.max), 1e-6);
        largest = Math.max(largest, Math.abs(o.min - r.min) / scale, Math.abs(o.max - r.max) / scale);
      }
      row[label] = {
        seconds: +seconds.toFixed(2),
        ...(repeats > 1 ? { runs: times.map((t) => +t.toFixed(2)) } : {}),
        backend: outcome.backend.kind,
        ...(label.startsWith('auto') ? { why: outcome.backend.chosenBecause, costs: await costsOf(seen) } : {}),
        largestRangeDifference: +largest.toExponential(2),
        tensors: ranges.size,
        outputMB: +(outcome.runOutputBytes / 1e6).toFixed(3),
      };
    } catch (e) {
      row[label] = { error: e instanceof Error ? e.message.slice(0, 300) : String(e) };
    }
    console.error(`${name} ${label}: ${JSON.stringify(row[label])}`);
  }
  console.log(JSON.stringify(row));
}
process.exit(0);
