/**
 * Choosing WebGPU or WASM by measurement, not by presence (issue 34): what the WebGPU adapter is (a software
 * or fallback adapter, "google swiftshader", is slower than WASM for this work and is never chosen unless
 * asked for), and which backend finishes the whole job sooner: each backend's session, first run (WebGPU's
 * shader compilation) and steady run weighed against the runs the job has, the probe's own cost included
 * (on a model not yet measured, WebGPU is started only where the runs left pay back its start-up at the most
 * cautious figures measured for a real GPU: REAL_GPU_PRIOR, runsToPayBack). Pure: the workers'
 * runtime (ort.ts) feeds it what it measured; tests feed it numbers measured on a GPU.
 */

import type { BackendPreference } from '../../src/core/runtime/session.ts';

export type { BackendPreference };

/** The adapter's description as WebGPU gives it (GPUAdapterInfo, and GPUAdapter.isFallbackAdapter). */
export interface AdapterFacts {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** GPUAdapterInfo.isFallbackAdapter (or the older GPUAdapter.isFallbackAdapter). */
  isFallbackAdapter: boolean;
}

/** Names of CPU (software) WebGPU implementations, as adapters report them. */
const SOFTWARE_NAMES = /swiftshader|llvmpipe|lavapipe|softpipe|software|warp|basic render driver|microsoft basic/i;

/** Why this adapter is a software one, or null for a real GPU. */
export function softwareAdapterReason(a: AdapterFacts): string | null {
  if (a.isFallbackAdapter) return `the WebGPU adapter (${adapterLabel(a)}) is a fallback adapter`;
  const text = [a.vendor, a.architecture, a.device, a.description].join(' ');
  if (SOFTWARE_NAMES.test(text)) return `the WebGPU adapter (${adapterLabel(a)}) is a software one, run on the CPU`;
  return null;
}

/** "google swiftshader", "nvidia hopper": how the page names an adapter. */
export function adapterLabel(a: AdapterFacts): string {
  const parts = [a.vendor, a.architecture || a.device || a.description].filter((p) => p && p.trim());
  return parts.length > 0 ? parts.join(' ') : 'unnamed adapter';
}

/** Identifies the device in the probe cache: the same model is probed again on another GPU. */
export function adapterKey(a: AdapterFacts): string {
  return [a.vendor, a.architecture, a.device, a.description, a.isFallbackAdapter ? 'fallback' : ''].join('|');
}

/**
 * What one backend costs on one model, measured: making its session, its first run (WebGPU compiles its shaders
 * and uploads the weights there), and a steady run after it.
 */
export interface BackendCost {
  createMs: number;
  firstRunMs: number;
  steadyMs: number;
}

/** Both backends' costs on a model and device: what the probe cache keeps (probeCache.ts). */
export interface MeasuredCosts {
  webgpu: BackendCost;
  wasm: BackendCost;
}

/** Milliseconds a backend needs for `runs` runs, starting without a session. */
export function jobMs(c: BackendCost, runs: number): number {
  return runs <= 0 ? c.createMs : c.createMs + c.firstRunMs + (runs - 1) * c.steadyMs;
}

/** What WebGPU costs before its runs pay anything back: its session and its first run's extra over a steady one. */
export function startupMs(c: BackendCost): number {
  return c.createMs + Math.max(0, c.firstRunMs - c.steadyMs);
}

/**
 * Where a session's runs go, and the estimates the choice rests on. `runs` is the job's length (Infinity where the
 * caller did not say: a long job, decided by the steady run alone).
 */
export interface JobDecision {
  winner: 'webgpu' | 'wasm';
  runs: number;
  /** Estimated milliseconds for the runs in question on each backend (their start-up included where it is still to pay). */
  webgpuMs: number;
  wasmMs: number;
  /** Steady milliseconds a run, where measured. */
  webgpuRunMs?: number;
  wasmRunMs: number;
  /** Which case decided: both costs known before the job (cache), WebGPU not worth starting, or both measured mid-job. */
  basis: 'measured earlier' | 'start-up not paid back' | 'measured on this model';
  /** For 'start-up not paid back': whether a model was measured on this device (else REAL_GPU_PRIOR alone). */
  priorMeasured?: boolean;
  /** For 'start-up not paid back': the runs that would have to be left (runsToPayBack). */
  payBackRuns?: number;
}

/**
 * With both backends' costs known before the job (measured earlier on this model and device): the one that
 * finishes `runs` runs sooner, each starting from nothing. A tie keeps WASM, the CPU reference.
 */
export function decideJob(costs: MeasuredCosts, runs: number): JobDecision {
  const long = !Number.isFinite(runs);
  const webgpuMs = long ? costs.webgpu.steadyMs : jobMs(costs.webgpu, runs);
  const wasmMs = long ? costs.wasm.steadyMs : jobMs(costs.wasm, runs);
  return {
    winner: webgpuMs < wasmMs ? 'webgpu' : 'wasm',
    runs,
    webgpuMs,
    wasmMs,
    webgpuRunMs: costs.webgpu.steadyMs,
    wasmRunMs: costs.wasm.steadyMs,
    basis: 'measured earlier',
  };
}

/**
 * What WebGPU is expected to cost on a device, for a model it has not run yet: its start-up (session, and first run
 * beyond a steady one) counted in the model's own steady WASM runs at one thread (a run on n threads counts n: an
 * upper bound of its one-thread time, so more threads only make the estimate more cautious), and its steady run
 * as a share of WASM's. Start-up in runs, not in seconds: it grows with the model (shaders, weights to upload) as
 * WASM's run does, where a fixed 2 s was short for the text detector (2.24 s) and long for UltraFace (0.38 s).
 */
export interface DevicePrior {
  startupRuns: number;
  runRatio: number;
  /** Whether a model was measured on this device (else REAL_GPU_PRIOR alone). */
  measured: boolean;
}

/**
 * The envelope of a real GPU, measured on the lent H200 (bench/results/webgpu-node.json; start-up taken from the
 * whole calibrations, `backendChoice.test.ts`): start-up 5.9 runs (UltraFace), 3.0 (YOLOX-nano), 6.33 (the PP-OCRv4
 * detector), none (super-resolution, MNIST); run ratio 0.75 at most where WebGPU runs faster (UltraFace). Rounded
 * up: 6.5 runs and 0.75. With these, WebGPU is started only where 6.5 / (1 − 0.75) = 26 runs (× WASM's threads)
 * are left, so no first job on these models is slower than WASM alone (tested at every length).
 */
export const REAL_GPU_PRIOR: DevicePrior = { startupRuns: 6.5, runRatio: 0.75, measured: false };

/** The prior a measured model leaves on its device (`threads`: the WASM session's). */
export function priorOf(costs: MeasuredCosts, threads = 1): DevicePrior {
  const wasmRun = costs.wasm.steadyMs * Math.max(1, threads);
  return {
    startupRuns: wasmRun > 0 ? startupMs(costs.webgpu) / wasmRun : 0,
    runRatio: costs.wasm.steadyMs > 0 ? costs.webgpu.steadyMs / costs.wasm.steadyMs : 1,
    measured: true,
  };
}

/**
 * What a device's figures are worth for its next model: the most cautious of every model measured on it and the
 * real-GPU envelope. One model's cheap start-up says little of another's (super-resolution starts with no extra
 * cost on the H200, the text detector with 6.33 runs), so a measured device only ever raises the estimate: a GPU
 * found slower than WASM (a ratio over 1) is not started again for a new model.
 */
export function cautiousPrior(...priors: (DevicePrior | null | undefined)[]): DevicePrior {
  const known = priors.filter((p): p is DevicePrior => !!p);
  return {
    startupRuns: Math.max(REAL_GPU_PRIOR.startupRuns, ...known.map((p) => p.startupRuns)),
    runRatio: Math.max(REAL_GPU_PRIOR.runRatio, ...known.map((p) => p.runRatio)),
    measured: known.some((p) => p.measured),
  };
}

/**
 * Runs that must be left, at the prior's figures, before WebGPU's start-up can be paid back: its start-up in WASM
 * runs (× threads) over what each WebGPU run saves (1 − ratio). Infinity where WebGPU saves nothing a run.
 */
export function runsToPayBack(prior: DevicePrior, threads = 1): number {
  const saved = 1 - prior.runRatio;
  return saved <= 0 ? Infinity : (Math.max(0, prior.startupRuns) * Math.max(1, threads)) / saved;
}

/**
 * Mid-job, WASM running and timed, nothing known of WebGPU on this model: whether to start WebGPU at all. WebGPU
 * is started only where at least runsToPayBack runs are left: at the prior's start-up and ratio, those runs save
 * more than the start-up costs, so a device within the prior loses nothing to trying (and one outside it at most
 * its start-up and one run: ProbingRunner gives up on a first run beyond the prior's start-up). Else WASM keeps
 * the job and the probe costs nothing. Returns the decision to stay, or null to start WebGPU.
 */
export function worthStartingGpu(
  wasmRunMs: number,
  runsLeft: number,
  prior: DevicePrior,
  threads = 1,
): JobDecision | null {
  if (!Number.isFinite(runsLeft)) return null; // a job of unknown length: long enough
  if (runsLeft > 0 && runsLeft >= runsToPayBack(prior, threads)) return null;
  const wasmMs = runsLeft * wasmRunMs;
  const ratio = Math.max(0, prior.runRatio);
  return {
    winner: 'wasm',
    runs: runsLeft,
    webgpuMs: prior.startupRuns * Math.max(1, threads) * wasmRunMs + wasmMs * ratio,
    wasmMs,
    wasmRunMs,
    webgpuRunMs: wasmRunMs * ratio,
    basis: 'start-up not paid back',
    priorMeasured: prior.measured,
    payBackRuns: runsToPayBack(prior, threads),
  };
}

/**
 * After WebGPU's first run on this job, whether it is already outside the prior: that run alone cost more over a
 * WASM run than the whole start-up the prior allows (a software adapter not named as one, a GPU slower than the
 * CPU). Then WASM takes the job back at once, losing the session and one run, not a second run.
 */
export function firstRunBeyondPrior(
  gpuFirstRunMs: number,
  wasmRunMs: number,
  prior: DevicePrior,
  threads = 1,
): boolean {
  return gpuFirstRunMs - wasmRunMs > prior.startupRuns * Math.max(1, threads) * wasmRunMs;
}

/**
 * Both sessions made and timed on this job's own samples: the runs left go to the faster steady run (what either
 * cost to start is spent). A tie keeps WASM.
 */
export function decideRemaining(webgpu: BackendCost, wasm: BackendCost, runsLeft: number): JobDecision {
  const n = Number.isFinite(runsLeft) ? runsLeft : 1;
  const webgpuMs = n * webgpu.steadyMs;
  const wasmMs = n * wasm.steadyMs;
  return {
    winner: webgpuMs < wasmMs ? 'webgpu' : 'wasm',
    runs: runsLeft,
    webgpuMs,
    wasmMs,
    webgpuRunMs: webgpu.steadyMs,
    wasmRunMs: wasm.steadyMs,
    basis: 'measured on this model',
  };
}

/** "3.2 ms", "41 ms", "1.3 s". */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return ms >= 10 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`;
}

/** The words the page shows for a decision. */
export function decisionReason(d: JobDecision): string {
  const runs = Number.isFinite(d.runs) ? `${d.runs} run${d.runs === 1 ? '' : 's'}` : null;
  if (d.basis === 'start-up not paid back') {
    const source = d.priorMeasured ? 'as measured on this device' : 'as measured on a real GPU';
    const from =
      d.payBackRuns !== undefined && Number.isFinite(d.payBackRuns)
        ? `pays its start-up back only from ${Math.ceil(d.payBackRuns)} runs left`
        : 'saves nothing a run';
    return `WASM finishes the ${runs} left in about ${formatMs(d.wasmMs)} (${formatMs(d.wasmRunMs)} a run); WebGPU would take about ${formatMs(d.webgpuMs)}, its start-up included, and ${from} (${source}), so it is not started`;
  }
  const perRun = `WebGPU ${formatMs(d.webgpuRunMs ?? NaN)} a run, WASM ${formatMs(d.wasmRunMs)}`;
  const verdict = d.winner === 'webgpu' ? 'WebGPU finishes sooner here' : 'WASM finishes sooner here';
  if (d.basis === 'measured earlier') {
    const whole = runs
      ? `; ${runs} from the start: WebGPU about ${formatMs(d.webgpuMs)}, WASM ${formatMs(d.wasmMs)}, session and first run included`
      : '';
    return `${verdict} (${perRun}${whole}; measured earlier on this model and device)`;
  }
  return `${verdict} (${perRun}${runs ? `, ${runs} left` : ''}; measured on this model)`;
}
