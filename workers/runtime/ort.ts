/**
 * onnxruntime-web for the workers: the only importer of onnxruntime-web (docs/ARCHITECTURE.md,
 * "Each third-party library lives in one place"). It picks the backend of each float session by measurement
 * (backendChoice.ts) and says why, so the page can show it:
 *
 *   WebGPU (`onnxruntime-web/webgpu`, the native WebGPU backend, not the older JSEP one) where a real GPU
 *   adapter finishes the job sooner, its start-up weighed against the runs the job has (measuredSession: costs
 *   measured on the job's first samples, cached per model and device), or where the user's switch says so; else WASM with threads when the page is cross-origin isolated
 *   (numThreads = min(4, hardwareConcurrency)); else single-threaded WASM. A software or fallback adapter
 *   ("google swiftshader") is never used unless the switch asks for it.
 *
 * Quantized models always run on WASM (docs/NOTES.md: WebGPU's int8 DequantizeLinear was wrong, and
 * QuantizeLinear has no WebGPU kernel). Sessions use graphOptimizationLevel 'basic', where web and
 * native onnxruntime agree to 1e-6, unless the caller asks for another level: the evaluation's headline figure runs
 * quantized models at 'all', onnxruntime-web's own default (what a user's session runs). Vite emits the .wasm files itself: no wasmPaths here.
 * The module is imported dynamically, so a worker that never runs a model never loads it.
 */
import type * as OrtModule from 'onnxruntime-web';
import type {
  BackendInfo,
  Feed,
  InferenceRunner,
  Runtime,
  RunTensor,
  SessionPlan,
  SessionPurpose,
} from '../../src/core/runtime/session.ts';
import { asSessionModel, type ModelBytes, type SessionModel } from '../../src/core/onnx/externalize.ts';
import {
  adapterKey,
  adapterLabel,
  decideJob,
  decideRemaining,
  cautiousPrior,
  decisionReason,
  firstRunBeyondPrior,
  priorOf,
  softwareAdapterReason,
  worthStartingGpu,
  type AdapterFacts,
  type BackendPreference,
  type DevicePrior,
  type MeasuredCosts,
} from './backendChoice.ts';
import { probeKey, readCosts, readPrior, writeCosts, writePrior } from './probeCache.ts';
import type { ParityRuntime } from '../../src/core/evaluate/parity.ts';
import type { GraphOptimization } from '../../src/core/runtime/graphOptimization.ts';

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
const sessionOptions = (
  providers: OrtModule.InferenceSession.ExecutionProviderConfig[],
  model: SessionModel,
  level: GraphOptimization = 'basic',
): OrtModule.InferenceSession.SessionOptions => ({
  executionProviders: providers,
  graphOptimizationLevel: level,
  logSeverityLevel: 3,
  ...(model.externalData.length > 0
    ? {
        externalData: model.externalData.map((f) => ({ path: f.path, data: f.data })),
        extra: { session: { disable_prepacking: '1' } },
      }
    : {}),
});

export type Made = { runner: InferenceRunner; backend: BackendInfo };

/** Runs of WASM timed before WebGPU is considered (the first is its warm-up), and of WebGPU once started. */
export const WASM_PROBE_RUNS = 2;
export const GPU_PROBE_RUNS = 2;

/** What the probe needs to know of its job and device. */
export interface ProbePlan {
  /** The runs the session will have (Infinity where the caller did not say). */
  runs: number;
  /** Milliseconds WASM's session took to make. */
  wasmCreateMs: number;
  /** WebGPU's expected figures on this device: cautiousPrior of those measured on it and REAL_GPU_PRIOR. */
  prior: DevicePrior;
  /** The probe cache's key for this model and device, and the device's. */
  key: string;
  device: string;
}

/** The steady cost of a run: the fastest after the first (the first itself where it is all there is). */
const steady = (runs: readonly number[]): number => (runs.length === 1 ? runs[0] : Math.min(...runs.slice(1)));

/**
 * A session that finds its backend on the job's own samples, each sample run once: WASM runs first
 * (WASM_PROBE_RUNS, timed); WebGPU is started only where the runs left pay its start-up back at the device's
 * cautious figures (backendChoice.worthStartingGpu); once started, its session and GPU_PROBE_RUNS runs are timed
 * (one, where the first is already beyond the prior's start-up: firstRunBeyondPrior), the runs left go to the
 * faster steady run, the other session is released, and both backends' costs are cached for this model and
 * device (the next job is decided before any session is made: decideJob). `now` is the clock (tests replay
 * measured costs on a virtual one).
 */
export function probingRunner(
  wasm: Made,
  startGpu: () => Promise<Made | { failed: string }>,
  plan: ProbePlan,
  now: () => number = () => performance.now(),
): InferenceRunner {
  const threads = Math.max(1, wasm.backend.threads);
  const wasmTimes: number[] = [];
  const gpuTimes: number[] = [];
  let gpu: Made | null = null;
  let gpuCreateMs = 0;
  let done = 0;
  let kept: Made | null = null;
  let dropped: Promise<void> | null = null;
  const timed = async (m: Made, into: number[], feeds: Readonly<Record<string, Feed>>, fetches?: readonly string[]) => {
    const t0 = now();
    const out = await m.runner.run(feeds, fetches);
    into.push(now() - t0);
    done++;
    return out;
  };
  const settle = (win: Made, lose: Made | null, why: string) => {
    const wasmWon = win === wasm;
    kept = {
      runner: win.runner,
      backend: {
        ...win.backend,
        chosenBecause: why,
        ...(wasmWon ? { fallbackReason: [why, win.backend.fallbackReason].filter(Boolean).join('; ') } : {}),
      },
    };
    dropped = lose ? lose.runner.release() : null;
  };
  return {
    inputNames: wasm.runner.inputNames,
    outputNames: wasm.runner.outputNames,
    async run(feeds, fetches) {
      if (kept) return kept.runner.run(feeds, fetches);
      if (wasmTimes.length < WASM_PROBE_RUNS) {
        const out = await timed(wasm, wasmTimes, feeds, fetches);
        if (wasmTimes.length === WASM_PROBE_RUNS) {
          const stay = worthStartingGpu(steady(wasmTimes), plan.runs - done, plan.prior, threads);
          if (stay) settle(wasm, null, decisionReason(stay));
        }
        return out;
      }
      if (!gpu) {
        const t0 = now();
        const made = await startGpu();
        gpuCreateMs = now() - t0;
        if ('failed' in made) {
          settle(wasm, null, made.failed);
          return wasm.runner.run(feeds, fetches);
        }
        gpu = made;
      }
      const out = await timed(gpu, gpuTimes, feeds, fetches);
      const beyond = gpuTimes.length === 1 && firstRunBeyondPrior(gpuTimes[0], steady(wasmTimes), plan.prior, threads);
      if (gpuTimes.length === GPU_PROBE_RUNS || beyond) {
        // Given up after one run, that run stands for the steady one: an upper bound, so the device is judged slower.
        const costs: MeasuredCosts = {
          webgpu: { createMs: gpuCreateMs, firstRunMs: gpuTimes[0], steadyMs: steady(gpuTimes) },
          wasm: { createMs: plan.wasmCreateMs, firstRunMs: wasmTimes[0], steadyMs: steady(wasmTimes) },
        };
        void writeCosts(plan.key, costs);
        void writePrior(plan.device, cautiousPrior(plan.prior, priorOf(costs, threads)));
        const d = decideRemaining(costs.webgpu, costs.wasm, plan.runs - done);
        if (d.winner === 'webgpu') settle(gpu, wasm, decisionReason(d));
        else settle(wasm, gpu, decisionReason(d));
      }
      return out;
    },
    async release() {
      await dropped;
      if (kept) return kept.runner.release();
      await Promise.all([wasm.runner.release(), gpu?.runner.release()]);
    },
    backend: () =>
      kept?.backend ??
      (gpu
        ? { ...gpu.backend, chosenBecause: 'timing WebGPU on the next runs, against WASM' }
        : {
            ...wasm.backend,
            chosenBecause: 'timing WASM on the first runs, to decide whether WebGPU can pay for its start-up',
          }),
  };
}

/** How a session is made on each backend, for measuredSession. */
export interface BackendMakers {
  wasm(): Promise<Made>;
  webgpu(because: string): Promise<Made | { failed: string }>;
}

/**
 * Auto on a real GPU: the backend that finishes this job sooner. Costs measured earlier on this model and device
 * decide before any session is made (only the winner's is); else WASM starts and probingRunner decides on the
 * job's own samples. `runs` is the job's length (Infinity where unknown); `device` the adapter's key; `prior`
 * replaces the device's cautious figures (a stand-in GPU in tests and bench).
 */
export async function measuredSession(
  make: BackendMakers,
  modelBytes: Uint8Array,
  device: string,
  runs: number,
  prior?: DevicePrior,
): Promise<Made> {
  const key = await probeKey(modelBytes, device);
  const known = await readCosts(key);
  if (known) {
    const d = decideJob(known, runs);
    const why = decisionReason(d);
    if (d.winner === 'wasm') {
      const cpu = await make.wasm();
      return {
        runner: cpu.runner,
        backend: {
          ...cpu.backend,
          chosenBecause: why,
          fallbackReason: [why, cpu.backend.fallbackReason].filter(Boolean).join('; '),
        },
      };
    }
    const gpu = await make.webgpu(why);
    if (!('failed' in gpu)) return gpu;
    const cpu = await make.wasm();
    return { runner: cpu.runner, backend: { ...cpu.backend, fallbackReason: gpu.failed } };
  }
  const t0 = performance.now();
  const cpu = await make.wasm();
  const plan: ProbePlan = {
    runs,
    wasmCreateMs: performance.now() - t0,
    prior: prior ?? cautiousPrior(await readPrior(device)),
    key,
    device,
  };
  const runner = probingRunner(cpu, () => make.webgpu('measured'), plan);
  return { runner, backend: runner.backend!() };
}

/**
 * The runtime of one worker. Float sessions (calibration) go where measurement says: no adapter, or a software
 * or fallback adapter, means WASM (unless the switch says WebGPU); on a real GPU the backend that finishes the
 * session's runs (`plan.runs`) sooner, measured on the model itself (measuredSession), once per model and device. Quantized models always run on WASM. `threads` caps the WASM
 * threads (the module reads the setting once, so the first runtime of a worker sets it). `forcedBecause` says why
 * WASM runs where `preference` forces it (the switch, or a step that only runs right on the CPU).
 */
export function createWebRuntime(
  preference: BackendPreference = 'auto',
  threads = MAX_THREADS,
  forcedBecause = 'the runtime switch says WASM',
): Runtime {
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

  async function onWasm(
    model: SessionModel,
    why: string | null,
    extra: Partial<BackendInfo> = {},
    level: GraphOptimization = 'basic',
  ): Promise<Made> {
    const ort = await loadWasm(wasm.threads);
    const session = await ort.InferenceSession.create(model.bytes, sessionOptions(['wasm'], model, level));
    return { runner: wrap(ort, session), backend: wasmInfo(why, extra) };
  }

  async function onWebGpu(
    model: SessionModel,
    facts: AdapterFacts,
    because: string,
  ): Promise<Made | { failed: string }> {
    try {
      const ort = await loadWebGpu(wasm.threads);
      const session = await ort.InferenceSession.create(model.bytes, sessionOptions(['webgpu', 'wasm'], model));
      return {
        runner: wrap(ort, session),
        backend: {
          kind: 'webgpu',
          threads: 0,
          fallbackReason: null,
          chosenBecause: because,
          adapter: adapterLabel(facts),
        },
      };
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
    async createSession(
      bytes: ModelBytes,
      purpose: SessionPurpose,
      plan?: SessionPlan,
      level: GraphOptimization = 'basic',
    ) {
      const model = asSessionModel(bytes);
      if (purpose === 'quantized')
        return onWasm(model, 'quantized models run on the CPU (WebGPU int8 kernels are not trusted)', {}, level);
      if (preference === 'wasm') return onWasm(model, forcedBecause, { chosenBecause: forcedBecause });
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
      if (software)
        return onWasm(
          model,
          `${software}: slower than WASM for this work, so not used unless the Runtime switch says WebGPU`,
          label,
        );
      // A model with its weights beside it is too large to hold twice for a probe: a real GPU takes it.
      if (model.externalData.length > 0) {
        const gpu = await onWebGpu(
          model,
          facts,
          'a GPU adapter, and a model too large to load twice for a timed probe',
        );
        return 'failed' in gpu ? onWasm(model, gpu.failed, label) : gpu;
      }
      return measuredSession(
        { wasm: () => onWasm(model, null, label), webgpu: (because) => onWebGpu(model, facts, because) },
        model.bytes,
        adapterKey(facts),
        plan?.runs ?? Infinity,
      );
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
function forcedRuntime(
  id: string,
  label: string,
  load: () => Promise<Ort>,
  provider: OrtModule.InferenceSession.ExecutionProviderConfig,
): ParityRuntime {
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

interface MlLike {
  createContext?(options?: object): Promise<unknown>;
}

/**
 * Why this context cannot run a model on WebNN, or null where it can make a WebNN context. `navigator.ml` alone is
 * not enough: Debian's Chromium 156 exposes it with --enable-features=WebMachineLearningNeuralNetwork, and every
 * createContext() there rejects ("WebNN is not supported on this platform").
 */
export async function webnnUnavailable(): Promise<string | null> {
  const ml = (globalThis.navigator as { ml?: MlLike } | undefined)?.ml;
  if (!ml) return 'this browser exposes no WebNN (navigator.ml)';
  if (typeof ml.createContext !== 'function') return 'this browser exposes navigator.ml without createContext';
  try {
    await ml.createContext();
    return null;
  } catch (e) {
    return `this browser exposes WebNN (navigator.ml) but cannot make a context here: ${(e instanceof Error ? e.message : String(e)).replace(/\.$/, '')}`;
  }
}

/**
 * Every runtime this browser offers for the parity check, WASM (the reference) first; those it lacks, with why.
 * WebGPU comes twice: the native backend the page uses, and the JSEP one of onnxruntime-web's default import.
 */
export async function parityRuntimes(
  threads = MAX_THREADS,
): Promise<{ available: ParityRuntime[]; unavailable: { id: string; label: string; reason: string }[] }> {
  const { threads: n } = wasmChoice(
    globalThis.crossOriginIsolated === true,
    globalThis.navigator?.hardwareConcurrency,
    threads,
  );
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
  const webnn = await webnnUnavailable();
  if (webnn === null) available.push(forcedRuntime('webnn', 'WebNN', () => loadJsep(n), 'webnn'));
  else unavailable.push({ id: 'webnn', label: 'WebNN', reason: webnn });
  return { available, unavailable };
}
