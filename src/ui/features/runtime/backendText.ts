/**
 * How the page names the backend a step ran on ("WebAssembly, 4 threads", "WebGPU (nvidia hopper)") and why it
 * ran there (the measurement, the switch, or what made a faster one unavailable): one wording for every step.
 */
import type { BackendInfo } from '../../../core/runtime/session.ts';

export function backendName(b: BackendInfo): string {
  switch (b.kind) {
    case 'webgpu':
      return b.adapter ? `WebGPU (${b.adapter})` : 'WebGPU';
    case 'wasm-threads':
      return `WebAssembly, ${b.threads} threads`;
    case 'wasm':
      return 'WebAssembly, 1 thread';
    default:
      return 'native';
  }
}

/** The backend, with the workers that ran it side by side. */
export function backendText(b: BackendInfo | null, workers = 1): string {
  if (!b) return 'starting onnxruntime…';
  const base = backendName(b);
  return workers > 1 ? `${workers} workers × ${base}` : base;
}

/** Why this backend ran the step: the measurement or the switch, and whatever made a faster one unavailable. */
export function whyText(b: BackendInfo | null): string | null {
  if (!b) return null;
  const parts = [b.chosenBecause, b.fallbackReason].filter((p): p is string => !!p);
  return parts.length > 0 ? [...new Set(parts)].join('; ') : null;
}
