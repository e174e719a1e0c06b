/**
 * onnxruntime-web for the workers: the only importer of onnxruntime-web (docs/ARCHITECTURE.md,
 * "Each third-party library lives in one place"). It picks the backend of each float session by measurement
 * (backendChoice.ts) and says why, so the page can show it:
 *
 *   WebGPU (`onnxruntime-web/webgpu`, the native WebGPU backend, not the older JSEP one) where a real GPU
 *   adapter ran the model faster in a short timed probe (cached per model and device), or where the user's
 *   switch says so; else WASM with threads when the page is cross-origin isolated
 *   (numThreads = min(4, hardwareConcurrency)); else single-threaded WASM. A software or fallback adapter
 *   ("google swiftshader") is never used unless the switch asks for it.
 *
 * Quantized models always run on WASM (docs/NOTES.md: WebGPU's int8 DequantizeLinear was wrong, and
 * QuantizeLinear has no WebGPU kernel). Sessions use graphOptimizationLevel 'basic', where web and
 * native onnxruntime agree to 1e-6. Vite emits the .wasm files itself: no wasmPaths here.
 * The module is imported dynamically, so a worker that never runs a model never loads it.
 */
import type * as OrtModule from 'onnxruntime-web';
import type { BackendInfo, Feed, InferenceRunner, Runtime, RunTensor, SessionPurpose } from '../../src/core/runtime/session.ts';
import { asSessionModel, type ModelBytes, type SessionModel } from '../../src/core/onnx/externalize.ts';
import {
  adapterKey, adapterLabel, decideProbe, PROBE_RUNS, probeReason, softwareAdapterReason,
  type AdapterFacts, type BackendPreference,
} from './backendChoice.ts';
import { probeKey, readProbe, writeProbe } from './probeCache.ts';
import type { ParityRuntime } from '../../src/core/evaluate/parity.ts';

type Ort = typeof OrtModule;

export type { BackendPreference } from './backendChoice.ts';

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

interface GpuAdapterLike {
  info?: Partial<AdapterFacts>;
  isFallbackAdapter?: boolean;
  requestAdapterInfo?(): Promise<Partial<AdapterFacts>>;
}
interface GpuLike {
  requestAdapter(): Promise<GpuAdapterLike | null>;
}

/** The WebGPU adapter this context would get, described; or why there is none, in words. */
type AdapterLook = { facts: AdapterFacts; unavailable?: undefined } | { unavailable: string };

async function lookAtAdapter(): Promise<AdapterLook> {
  const gpu = (globalThis.navigator as { gpu?: GpuLike } | undefined)?.gpu;
  if (!gpu) return { unavailable: 'this browser offers no WebGPU' };
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return { unavailable: 'WebGPU found no GPU adapter' };
    const info = adapter.info ?? (await adapter.requestAdapterInfo?.()) ?? {};
    return {
      facts: {
        vendor: info.vendor ?? '',
        architecture: info.architecture ?? '',
        device: info.device ?? '',
        description: info.description ?? '',
        isFallbackAdapter: !!(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
      },
    };
  } catch (e) {
    return { unavailable: `WebGPU failed to start (${e instanceof Error ? e.message : String(e)})` };
  }
}

let webgpuModule: Promise<Ort> | null = null;
let wasmModule: Promise<Ort> | null = null;

function configure(ort: Ort, threads: number): Ort {
  ort.env.logLevel = 'error';
  ort.env.wasm.numThreads = threads;
  return ort;
}

function loadWebGpu(threads: number): Promise<Ort> {
  webgpuModule ??= import('onnxruntime-web/webgpu').then((m) => configure(m as unknown as Ort, threads));
  return webgpuModule;
}

// WASM sessions always come from the plain WASM build: the WebGPU build's WASM (asyncify) is slower, and a probe
// must time the WASM a session would really get.
function loadWasm(threads: number): Promise<Ort> {
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

export type Made = { runner: InferenceRunner; backend: BackendInfo };

/**
 * The first PROBE_RUNS runs on both backends, timed (the WASM result is the one returned); then the faster is
 * kept, the other released, and the outcome cached for this model and device. A model run fewer times stays on
 * both, answered by WASM.
 */
export function probingRunner(wasm: Made, gpu: Made, key: string): InferenceRunner {
  const times = { webgpu: [] as number[], wasm: [] as number[] };
  let kept: Made | null = null;
  let dropped: Promise<void> | null = null;
  const timed = async (m: Made, into: number[], feeds: Readonly<Record<string, Feed>>, fetches?: readonly string[]) => {
    const t0 = performance.now();
    const out = await m.runner.run(feeds, fetches);
    into.push(performance.now() - t0);
    return out;
  };
  return {
    inputNames: wasm.runner.inputNames,
    outputNames: wasm.runner.outputNames,
    async run(feeds, fetches) {
      if (kept) return kept.runner.run(feeds, fetches);
      // Alternate which goes first, so neither always pays for a cold cache.
      const gpuFirst = times.wasm.length % 2 === 1;
      if (gpuFirst) await timed(gpu, times.webgpu, feeds, fetches);
      const out = await timed(wasm, times.wasm, feeds, fetches);
      if (!gpuFirst) await timed(gpu, times.webgpu, feeds, fetches);
      if (times.wasm.length >= PROBE_RUNS) {
        const decision = decideProbe(times);
        const [win, lose] = decision.winner === 'webgpu' ? [gpu, wasm] : [wasm, gpu];
        kept = { runner: win.runner, backend: { ...win.backend, chosenBecause: probeReason(decision, false), ...(decision.winner === 'wasm' ? { fallbackReason: probeReason(decision, false) } : {}) } };
        dropped = lose.runner.release();
        void writeProbe(key, decision);
      }
      return out;
    },
    async release() {
      await dropped;
      if (kept) return kept.runner.release();
      await Promise.all([wasm.runner.release(), gpu.runner.release()]);
    },
    backend: () => kept?.backend ?? { ...wasm.backend, chosenBecause: 'timing WebGPU against WASM on the first runs' },
  };
}

/**
 * The runtime of one worker. Float sessions (calibration) go where measurement says: no adapter, or a software
 * or fallback adapter, means WASM (unless the switch says WebGPU); a real GPU is probed on the model itself
 * (probingRunner), once per model and device. Quantized models always run on WASM. `threads` caps the WASM
 * threads (the module reads the setting once, so the first runtime of a worker sets it).
 */
export function createWebRuntime(preference: BackendPreference = 'auto', threads = MAX_THREADS): Runtime {
  const wasm = wasmChoice(globalThis.crossOriginIsolated === true, globalThis.navigator?.hardwareConcurrency, threads);
  let adapter: Promise<AdapterLook> | null = null;
  /** Set once WebGPU failed to load a model: later sessions of this worker go straight to WASM. */
  let gpuBroken: string | null = null;

  const wasmInfo = (why: string | null, extra: Partial<BackendInfo> = {}): BackendInfo => ({
    kind: wasm.threads > 1 ? 'wasm-threads' : 'wasm',
    threads: wasm.threads,
    fallbackReason: [why, wasm.reason].filter(Boolean).join('; ') || null,
    ...extra,
  });

  async function onWasm(model: SessionModel, why: string | null, extra: Partial<BackendInfo> = {}): Promise<Made> {
    const ort = await loadWasm(wasm.threads);
    const session = await ort.InferenceSession.create(model.bytes, sessionOptions(['wasm'], model));
    return { runner: wrap(ort, session), backend: wasmInfo(why, extra) };
  }

  async function onWebGpu(model: SessionModel, facts: AdapterFacts, because: string): Promise<Made | { failed: string }> {
    try {
      const ort = await loadWebGpu(wasm.threads);
      const session = await ort.InferenceSession.create(model.bytes, sessionOptions(['webgpu', 'wasm'], model));
      return { runner: wrap(ort, session), backend: { kind: 'webgpu', threads: 0, fallbackReason: null, chosenBecause: because, adapter: adapterLabel(facts) } };
    } catch (e) {
      gpuBroken = `WebGPU could not load the model (${e instanceof Error ? e.message : String(e)})`;
      return { failed: gpuBroken };
    }
  }

  return {
    // Where a float session may land on a GPU (the switch, or Auto with a real adapter), calibration packs its outputs.
    async packsOutputs() {
      if (preference === 'wasm' || gpuBroken) return false;
      adapter ??= lookAtAdapter();
      const look = await adapter;
      if (look.unavailable !== undefined) return false;
      return preference === 'webgpu' || softwareAdapterReason(look.facts) === null;
    },
    async createSession(bytes: ModelBytes, purpose: SessionPurpose) {
      const model = asSessionModel(bytes);
      if (purpose === 'quantized') return onWasm(model, 'quantized models run on the CPU (WebGPU int8 kernels are not trusted)');
      if (preference === 'wasm') return onWasm(model, 'the runtime switch says WASM', { chosenBecause: 'the runtime switch says WASM' });
      adapter ??= lookAtAdapter();
      const look = await adapter;
      if (look.unavailable !== undefined) return onWasm(model, look.unavailable);
      const { facts } = look;
      const label = { adapter: adapterLabel(facts) };
      if (gpuBroken) return onWasm(model, gpuBroken, label);
      if (preference === 'webgpu') {
        const gpu = await onWebGpu(model, facts, 'the runtime switch says WebGPU');
        return 'failed' in gpu ? onWasm(model, gpu.failed, label) : gpu;
      }
      const software = softwareAdapterReason(facts);
      if (software) return onWasm(model, `${software}: slower than WASM for this work, so not used unless the Runtime switch says WebGPU`, label);
      // A model with its weights beside it is too large to hold twice for a probe: a real GPU takes it.
      if (model.externalData.length > 0) {
        const gpu = await onWebGpu(model, facts, 'a GPU adapter, and a model too large to load twice for a timed probe');
        return 'failed' in gpu ? onWasm(model, gpu.failed, label) : gpu;
      }
      const key = await probeKey(model.bytes, adapterKey(facts));
      const known = await readProbe(key);
      if (known?.winner === 'wasm') return onWasm(model, probeReason(known, true), { ...label, chosenBecause: probeReason(known, true) });
      if (known?.winner === 'webgpu') {
        const gpu = await onWebGpu(model, facts, probeReason(known, true));
        return 'failed' in gpu ? onWasm(model, gpu.failed, label) : gpu;
      }
      const cpu = await onWasm(model, null, label);
      const gpu = await onWebGpu(model, facts, 'measured');
      if ('failed' in gpu) return { runner: cpu.runner, backend: { ...cpu.backend, fallbackReason: gpu.failed } };
      const runner = probingRunner(cpu, gpu, key);
      return { runner, backend: runner.backend!() };
    },
  };
}

let jsepModule: Promise<Ort> | null = null;

// onnxruntime-web's default build: WebGPU through the older JSEP backend (what many web apps ship), and WebNN.
function loadJsep(threads: number): Promise<Ort> {
  jsepModule ??= import('onnxruntime-web').then((m) => configure(m as unknown as Ort, threads));
  return jsepModule;
}

/** A runtime of the parity table: one backend, forced (no fallback to another), at graph optimization 'basic'. */
function forcedRuntime(id: string, label: string, load: () => Promise<Ort>, provider: OrtModule.InferenceSession.ExecutionProviderConfig): ParityRuntime {
  return {
    id,
    label,
    async createSession(bytes: ModelBytes) {
      const ort = await load();
      const model = asSessionModel(bytes);
      return wrap(ort, await ort.InferenceSession.create(model.bytes, sessionOptions([provider], model)));
    },
  };
}

/**
 * Every runtime this browser offers for the parity check, WASM (the reference) first; those it lacks, with why.
 * WebGPU comes twice: the native backend the page uses, and the JSEP one of onnxruntime-web's default import.
 */
export async function parityRuntimes(threads = MAX_THREADS): Promise<{ available: ParityRuntime[]; unavailable: { id: string; label: string; reason: string }[] }> {
  const { threads: n } = wasmChoice(globalThis.crossOriginIsolated === true, globalThis.navigator?.hardwareConcurrency, threads);
  const available: ParityRuntime[] = [forcedRuntime('wasm', 'WASM (reference)', () => loadWasm(n), 'wasm')];
  const unavailable: { id: string; label: string; reason: string }[] = [];
  const look = await lookAtAdapter();
  if (look.unavailable === undefined) {
    const on = ` (${adapterLabel(look.facts)}${softwareAdapterReason(look.facts) ? ', software' : ''})`;
    available.push(forcedRuntime('webgpu', `WebGPU${on}`, () => loadWebGpu(n), 'webgpu'));
    available.push(forcedRuntime('webgpu-jsep', `WebGPU, JSEP build${on}`, () => loadJsep(n), 'webgpu'));
  } else {
    unavailable.push({ id: 'webgpu', label: 'WebGPU', reason: look.unavailable });
  }
  if ((globalThis.navigator as { ml?: unknown } | undefined)?.ml) available.push(forcedRuntime('webnn', 'WebNN', () => loadJsep(n), 'webnn'));
  else unavailable.push({ id: 'webnn', label: 'WebNN', reason: 'this browser exposes no WebNN (navigator.ml)' });
  return { available, unavailable };
}
