/**
 * What calibration (and the workers' evaluation and recovery) need from an ONNX runtime, without naming
 * one: a session over model bytes that runs named feeds and gives named outputs back. The workers implement
 * it with onnxruntime-web (workers/runtime/ort.ts), the command line with onnxruntime-node
 * (src/cli/runtime/ortNode.ts). Types only: this module must not import a runtime.
 */
import type { ModelBytes } from '../onnx/externalize.ts';
import type { GraphOptimization } from './graphOptimization.ts';

/** Element types a feed may have (what .npy inputs and images become). */
export type FeedType = 'float32' | 'float64' | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'int64' | 'bool';

/** One input tensor of a run. `data` is owned by the caller and may be reused after the run. */
export interface Feed {
  readonly type: FeedType;
  readonly data:
    Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | BigInt64Array;
  readonly dims: readonly number[];
}

/** One output of a run, as onnxruntime (web or node) reports it: `data` is a typed array in JS memory. */
export interface RunTensor {
  readonly type: string;
  readonly data: unknown;
  readonly dims: readonly number[];
}

/** The memory a run's output holds: its typed array's bytes (a plain array, e.g. of strings, counted at 8 bytes a value). */
export function runTensorBytes(t: RunTensor): number {
  const d = t.data as { byteLength?: number; length?: number };
  return d.byteLength ?? (d.length ?? 0) * 8;
}

/** A loaded model. `run` without `fetches` returns every graph output. */
export interface InferenceRunner {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Readonly<Record<string, Feed>>, fetches?: readonly string[]): Promise<Record<string, RunTensor>>;
  /** Frees what the runtime can; the WASM heap itself only shrinks when the worker ends (docs/NOTES.md). */
  release(): Promise<void>;
  /**
   * The backend running it now, where that can change after the session was made (a probe that times the first
   * runs on two backends and keeps the faster: workers/runtime/ort.ts).
   */
  backend?(): BackendInfo;
}

/** The page's runtime switch: 'auto' measures (workers/runtime/backendChoice.ts); 'webgpu' and 'wasm' force one. */
export type BackendPreference = 'auto' | 'webgpu' | 'wasm';

/** Which engine runs a session, and why it is not a faster one. */
export type BackendKind = 'webgpu' | 'wasm-threads' | 'wasm' | 'native';

export interface BackendInfo {
  readonly kind: BackendKind;
  /** Threads of the WASM backend (1 without threads); 0 for WebGPU and native (runtime's choice). */
  readonly threads: number;
  /** Why a faster backend was not used (no WebGPU adapter, not cross-origin isolated, …); null when none was skipped. */
  readonly fallbackReason: string | null;
  /** Why this backend was chosen, in words (a probe's numbers, the user's switch), where there was a choice. */
  readonly chosenBecause?: string;
  /** The WebGPU adapter, where one was looked at ("nvidia hopper", "google swiftshader"). */
  readonly adapter?: string;
}

/**
 * What a session is for. Calibration runs the float model and may use WebGPU; quantized models are
 * evaluated on the WASM CPU backend only (WebGPU's int8 DequantizeLinear computed wrong values, docs/NOTES.md).
 */
export type SessionPurpose = 'float' | 'quantized';

/** What the caller knows of a session's job: how many runs it will have, so a runtime can weigh a backend's start-up. */
export interface SessionPlan {
  readonly runs: number;
}

export interface Runtime {
  /**
   * `plan`: what the caller knows of the session's job. `graphOptimization`: the onnxruntime level the session runs
   * at ('basic' when absent: the model's own Q/DQ arithmetic; 'all': onnxruntime's default, Q/DQ fused into int8 kernels).
   */
  createSession(
    model: ModelBytes,
    purpose: SessionPurpose,
    plan?: SessionPlan,
    graphOptimization?: GraphOptimization,
  ): Promise<{ runner: InferenceRunner; backend: BackendInfo }>;
  /**
   * Whether a float session may run where each graph output costs a round trip of its own (a GPU): calibration
   * then reads its exposed tensors back as one (core/calibrate/run/packOutputs.ts). Absent means no.
   */
  packsOutputs?(): Promise<boolean>;
}
