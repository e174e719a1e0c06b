/**
 * Choosing WebGPU or WASM by measurement, not by presence (issue 34): what the WebGPU adapter is (a software
 * or fallback adapter, "google swiftshader", is slower than WASM for this work and is never chosen unless
 * asked for), and which backend finishes the whole job sooner: each backend's session, first run (WebGPU's
 * shader compilation) and steady run weighed against the runs the job has, the probe's own cost included
 * (WebGPU is not started where WASM ends the job before WebGPU's start-up would be over). Pure: the workers'
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
  /** For 'start-up not paid back': whether WebGPU's figures were measured on this device (else the default prior). */
  priorMeasured?: boolean;
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
 * What a device's WebGPU was last measured to cost, for a model it has not run yet: its start-up (session, and
 * first run beyond a steady one) and its steady run as a share of WASM's.
 */
export interface DevicePrior {
  startupMs: number;
  runRatio: number;
  /** Whether these were measured on this device (else DEFAULT_DEVICE_PRIOR). */
  measured: boolean;
}

/**
 * The prior of a device where no model was measured yet. From the lent H200's whole calibrations
 * (bench/results/webgpu-node.json): WebGPU's start-up exceeded WASM's by 0.4 s (UltraFace) to 2.1 s (the PP-OCRv4
 * detector), its steady run took 0.53 to 0.75 of WASM's on the detectors. 2 s and a half: a job must promise
 * twice the start-up in WASM time before WebGPU is tried.
 */
export const DEFAULT_DEVICE_PRIOR: DevicePrior = { startupMs: 2000, runRatio: 0.5, measured: false };

/** The prior a measured model leaves on its device. */
export function priorOf(costs: MeasuredCosts): DevicePrior {
  return {
    startupMs: startupMs(costs.webgpu),
    runRatio: costs.wasm.steadyMs > 0 ? costs.webgpu.steadyMs / costs.wasm.steadyMs : 1,
    measured: true,
  };
}

/**
 * Mid-job, WASM running and timed, nothing known of WebGPU on this model: whether to start WebGPU at all. WebGPU
 * is started only where the runs left promise to pay its start-up back (WASM's time for them, less what WebGPU
 * would take at the device's run ratio, exceeds the start-up); else WASM keeps the job and the probe costs
 * nothing. Returns the decision to stay, or null to start WebGPU.
 */
export function worthStartingGpu(wasmRunMs: number, runsLeft: number, prior: DevicePrior): JobDecision | null {
  if (!Number.isFinite(runsLeft)) return null; // a job of unknown length: long enough
  const wasmMs = runsLeft * wasmRunMs;
  const gpuRunsMs = wasmMs * Math.min(1, Math.max(0, prior.runRatio));
  if (wasmMs - gpuRunsMs > prior.startupMs) return null;
  return {
    winner: 'wasm',
    runs: runsLeft,
    webgpuMs: prior.startupMs + gpuRunsMs,
    wasmMs,
    wasmRunMs,
    webgpuRunMs: wasmRunMs * prior.runRatio,
    basis: 'start-up not paid back',
    priorMeasured: prior.measured,
  };
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
    const source = d.priorMeasured ? 'as last measured on this device' : 'no model measured on this device yet';
    return `WASM finishes the ${runs} left in about ${formatMs(d.wasmMs)} (${formatMs(d.wasmRunMs)} a run); WebGPU would take about ${formatMs(d.webgpuMs)}, its start-up included (${source}), so it is not started`;
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
