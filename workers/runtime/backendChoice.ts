/**
 * Choosing WebGPU or WASM by measurement, not by presence (issue 34): what the WebGPU adapter is (a software
 * or fallback adapter, "google swiftshader", is slower than WASM for this work and is never chosen unless
 * asked for), and the decision of a short timed probe: the same runs on both backends, first runs (session
 * warm-up, shader compilation) left out, the faster steady run wins. Pure: the workers' runtime (ort.ts)
 * feeds it what it measured; tests feed it numbers.
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

/** Runs of each backend a probe times (the first of each is warm-up and only counts where nothing else does). */
export const PROBE_RUNS = 3;

/** What a probe measured: milliseconds of each run, in order, per backend. */
export interface ProbeTimes {
  webgpu: readonly number[];
  wasm: readonly number[];
}

export interface ProbeDecision {
  winner: 'webgpu' | 'wasm';
  /** Steady milliseconds a run (the fastest run after the first). */
  webgpuMs: number;
  wasmMs: number;
}

/** The steady cost of a run: the fastest after the warm-up run (the warm-up itself where it is all there is). */
export function steadyMs(runs: readonly number[]): number {
  if (runs.length === 0) return Infinity;
  return runs.length === 1 ? runs[0] : Math.min(...runs.slice(1));
}

/** WebGPU wins only when its steady run is faster than WASM's. */
export function decideProbe(t: ProbeTimes): ProbeDecision {
  const webgpuMs = steadyMs(t.webgpu);
  const wasmMs = steadyMs(t.wasm);
  return { winner: webgpuMs < wasmMs ? 'webgpu' : 'wasm', webgpuMs, wasmMs };
}

/** "3.2 ms", "41 ms", "1.3 s". */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return ms >= 10 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`;
}

/** The words the page shows for a probe's outcome. */
export function probeReason(d: ProbeDecision, cached: boolean): string {
  const numbers = `WebGPU ${formatMs(d.webgpuMs)} a run, WASM ${formatMs(d.wasmMs)}`;
  const when = cached ? 'measured earlier on this model and device' : 'measured on this model';
  return d.winner === 'webgpu' ? `WebGPU is faster here (${numbers}; ${when})` : `WebGPU is slower here (${numbers}; ${when})`;
}
