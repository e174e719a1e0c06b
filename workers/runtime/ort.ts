/**
 * onnxruntime-web for the workers: the only importer of onnxruntime-web (ARCHITECTURE, "each
 * third-party library lives in one place"). It picks the backend once per worker and says why it
 * did not pick a faster one, so the page can show it:
 *
 *   WebGPU (`onnxruntime-web/webgpu`, the native WebGPU backend, not the older JSEP one) when
 *   `navigator.gpu` gives an adapter; else WASM with threads when the page is cross-origin isolated
 *   (numThreads = min(4, hardwareConcurrency)); else single-threaded WASM.
 *
 * Quantized models always run on WASM (NOTES.md: WebGPU's int8 DequantizeLinear was wrong, and
 * QuantizeLinear has no WebGPU kernel). Sessions use graphOptimizationLevel 'basic', where web and
 * native onnxruntime agree to 1e-6. Vite emits the .wasm files itself: no wasmPaths here.
 * The module is imported dynamically, so a worker that never runs a model never loads it.
 */
import type * as OrtModule from 'onnxruntime-web';
import type { BackendInfo, Feed, InferenceRunner, Runtime, RunTensor, SessionPurpose } from '../../src/core/runtime/session.ts';
import { asSessionModel, type ModelBytes, type SessionModel } from '../../src/core/onnx/externalize.ts';

type Ort = typeof OrtModule;

/** Which backends the caller allows: 'auto' tries WebGPU first; 'wasm' never touches the GPU. */
export type BackendPreference = 'auto' | 'wasm';

/** The most WASM threads a session gets: more than four rarely helps a single image (onnxruntime's own default). */
const MAX_THREADS = 4;

interface WasmChoice {
  threads: number;
  /** Why threads are off, or null. */
  reason: string | null;
}

/**
 * Threads when cross-origin isolated (SharedArrayBuffer), one otherwise. `wanted` caps them: the page
 * gives each of several calibration workers its share of the cores.
 */
export function wasmChoice(isolated: boolean, cores: number | undefined, wanted = MAX_THREADS): WasmChoice {
  if (!isolated) return { threads: 1, reason: 'the page is not cross-origin isolated, so WebAssembly threads are off' };
  const threads = Math.max(1, Math.min(MAX_THREADS, wanted, cores || 1));
  const reason = threads > 1 ? null : (cores || 1) <= 1 ? 'this machine reports one CPU core' : null;
  return { threads, reason };
}

interface GpuLike {
  requestAdapter(): Promise<unknown>;
}

/** Null when a WebGPU adapter is there; otherwise why not, in words. */
async function webGpuUnavailable(): Promise<string | null> {
  const gpu = (globalThis.navigator as { gpu?: GpuLike } | undefined)?.gpu;
  if (!gpu) return 'this browser offers no WebGPU';
  try {
    const adapter = await gpu.requestAdapter();
    return adapter ? null : 'WebGPU found no GPU adapter';
  } catch (e) {
    return `WebGPU failed to start (${e instanceof Error ? e.message : String(e)})`;
  }
}

let webgpuModule: Promise<Ort> | null = null;
let wasmModule: Promise<Ort> | null = null;

function configure(ort: Ort, threads: number): Ort {
  ort.env.logLevel = 'error';
  ort.env.wasm.numThreads = threads;
  return ort;
}

// The WebGPU build also runs the 'wasm' provider, so once it is loaded it serves both kinds of session.
function loadWebGpu(threads: number): Promise<Ort> {
  webgpuModule ??= import('onnxruntime-web/webgpu').then((m) => configure(m as unknown as Ort, threads));
  return webgpuModule;
}

function loadWasm(threads: number): Promise<Ort> {
  if (webgpuModule) return webgpuModule;
  wasmModule ??= import('onnxruntime-web/wasm').then((m) => configure(m as unknown as Ort, threads));
  return wasmModule;
}

function wrap(ort: Ort, session: OrtModule.InferenceSession): InferenceRunner {
  return {
    inputNames: session.inputNames,
    outputNames: session.outputNames,
    async run(feeds: Readonly<Record<string, Feed>>, fetches?: readonly string[]) {
      const tensors: Record<string, OrtModule.Tensor> = {};
      for (const [name, f] of Object.entries(feeds)) tensors[name] = new ort.Tensor(f.type, f.data, f.dims as number[]);
      const out = fetches ? await session.run(tensors, fetches as string[]) : await session.run(tensors);
      const result: Record<string, RunTensor> = {};
      for (const [name, t] of Object.entries(out)) result[name] = { type: t.type, data: t.data, dims: t.dims };
      return result;
    },
    release: () => session.release(),
  };
}

// A model of a gigabyte or more comes with its weights beside it (core/onnx/externalize.ts): onnxruntime-web
// takes those buffers as they are through `externalData` and copies each tensor once, into its heap. Such a
// session also keeps MatMul/Gemm weights as they are instead of repacking a second copy of them (onnxruntime's
// `session.disable_prepacking`): measured, that copy took 0.71 bytes of WebAssembly heap per byte of model,
// the difference between a 2.2 GB model filling the 4 GiB heap and leaving room for its evaluation
// (core/runtime/wasmHeap.ts).
const sessionOptions = (providers: OrtModule.InferenceSession.ExecutionProviderConfig[], model: SessionModel): OrtModule.InferenceSession.SessionOptions => ({
  executionProviders: providers,
  graphOptimizationLevel: 'basic',
  logSeverityLevel: 3,
  ...(model.externalData.length > 0
    ? { externalData: model.externalData.map((f) => ({ path: f.path, data: f.data })), extra: { session: { disable_prepacking: '1' } } }
    : {}),
});

/**
 * The runtime of one worker. The backend is decided on the first session and kept; `threads` caps the
 * WASM threads (the module reads the setting once, so the first runtime of a worker sets it).
 */
export function createWebRuntime(preference: BackendPreference = 'auto', threads = MAX_THREADS): Runtime {
  const wasm = wasmChoice(globalThis.crossOriginIsolated === true, globalThis.navigator?.hardwareConcurrency, threads);
  let gpuReason: Promise<string | null> | null = null;

  const wasmInfo = (why: string | null): BackendInfo => ({
    kind: wasm.threads > 1 ? 'wasm-threads' : 'wasm',
    threads: wasm.threads,
    fallbackReason: [why, wasm.reason].filter(Boolean).join('; ') || null,
  });

  async function onWasm(model: SessionModel, why: string | null) {
    const ort = await loadWasm(wasm.threads);
    const session = await ort.InferenceSession.create(model.bytes, sessionOptions(['wasm'], model));
    return { runner: wrap(ort, session), backend: wasmInfo(why) };
  }

  return {
    async createSession(bytes: ModelBytes, purpose: SessionPurpose) {
      const model = asSessionModel(bytes);
      if (purpose === 'quantized') return onWasm(model, 'quantized models run on the CPU (WebGPU int8 kernels are not trusted)');
      if (preference === 'wasm') return onWasm(model, 'WebGPU was not requested');
      gpuReason ??= webGpuUnavailable();
      const why = await gpuReason;
      if (why) return onWasm(model, why);
      try {
        const ort = await loadWebGpu(wasm.threads);
        const session = await ort.InferenceSession.create(model.bytes, sessionOptions(['webgpu', 'wasm'], model));
        return { runner: wrap(ort, session), backend: { kind: 'webgpu' as const, threads: 0, fallbackReason: null } };
      } catch (e) {
        gpuReason = Promise.resolve(`WebGPU could not load the model (${e instanceof Error ? e.message : String(e)})`);
        return onWasm(model, await gpuReason);
      }
    },
  };
}
