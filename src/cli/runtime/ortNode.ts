/**
 * onnxruntime-node for the command line, the Node tests and the benchmarks: the only importer of
 * onnxruntime-node, and the one place a Node session is made. Everything that runs a model in Node
 * (calibration, evaluation, the recovery optimizers' products, the tests' stand-in for a worker's
 * runtime) opens its sessions here.
 *
 * Sessions run at graph optimization level 'basic', where native and web onnxruntime agree to 1e-6
 * (docs/NOTES.md); 'all' differed by 0.2 % on one model, which would blur float-vs-quantized comparisons.
 * 'all' is onnxruntime's own default, and what a CPU deployment runs: Q/DQ pairs fused into int8
 * kernels (QLinearConv, QLinearMatMul, QGemm), whose 8-bit products saturate on x86 CPUs without VNNI.
 * `qstudio evaluate` reports that figure first (`SessionOptimization`).
 */
import * as ort from 'onnxruntime-node';
import {
  DataType,
  elementTypeName,
  readTensor,
  UnsupportedModelError,
  type ModelBytes,
  type TensorProto,
} from '../../core/onnx/index.ts';
import { sessionModelFolder } from './sessionFiles.ts';
import { InferenceError } from '../../core/calibrate/errors.ts';
import type { ComparisonRuntime } from '../../core/evaluate/compareModels.ts';
import type { GraphOptimization } from '../../core/runtime/graphOptimization.ts';
import type { Runtime, RunTensor } from '../../core/runtime/session.ts';

export type OrtTensor = ort.Tensor;
export type Feeds = Record<string, ort.Tensor>;

/**
 * How much onnxruntime rewrites the graph before running it: 'basic' (the studio's measurements, the
 * model's own arithmetic) or 'all' (onnxruntime's default: the CPU provider's fused int8 kernels).
 */
export type SessionOptimization = GraphOptimization;

/** An input as the runtimes hand them around: onnxruntime's own tensor, or plain element type, data and dims. */
export type TensorLike = RunTensor;

export interface NodeSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Readonly<Record<string, TensorLike>>, outputs?: readonly string[]): Promise<Record<string, ort.Tensor>>;
  release(): Promise<void>;
}

/** The feed as onnxruntime's tensor (the same memory, not a copy). */
export function ortTensor(t: TensorLike): ort.Tensor {
  return t instanceof ort.Tensor ? t : new ort.Tensor(t.type as ort.Tensor.Type, t.data as ort.Tensor.DataType, t.dims);
}

/** How an InferenceError from createSession begins: onnxruntime's reason follows. */
export const REFUSED = 'onnxruntime refuses to load the model:';

/** onnxruntime's own words, without the binding's "Error: " and the "Load model from <path> failed:" it wraps them in. */
export function runtimeReason(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text
    .replace(/^Error:\s*/, '')
    .replace(/^Load model from .*? failed:\s*/s, '')
    .trim();
}

async function openOrtSession(
  model: ModelBytes | string,
  options: ort.InferenceSession.SessionOptions,
): Promise<ort.InferenceSession> {
  if (typeof model === 'string') return ort.InferenceSession.create(model, options);
  if (model instanceof Uint8Array) return ort.InferenceSession.create(model, options);
  if (model.externalData.length === 0) return ort.InferenceSession.create(model.bytes, options);
  // onnxruntime reads the external data while it builds the session; the folder's links are not needed after.
  const folder = sessionModelFolder(model);
  try {
    return await ort.InferenceSession.create(folder.onnx, options);
  } finally {
    folder.remove();
  }
}

/**
 * A session over model bytes, a model with external data (loaded from a session folder, see
 * sessionFiles.ts), or a path. `spinning` false: the pool threads sleep between runs instead of busy-waiting.
 * onnxruntime's refusals to load or run are InferenceErrors with its reason (the command line prints them by name).
 */
export async function createSession(
  model: ModelBytes | string,
  threads = 0,
  optimization: SessionOptimization = 'basic',
  spinning = true,
): Promise<NodeSession> {
  const options: ort.InferenceSession.SessionOptions = {
    graphOptimizationLevel: optimization,
    intraOpNumThreads: threads,
    logSeverityLevel: 3,
    // onnxruntime's pool threads busy-wait for work between and after runs unless told not to (config key
    // session.intra_op.allow_spinning): CPU burnt for nothing when runs are short and many.
    ...(spinning
      ? {}
      : { extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } } }),
  };
  let session: ort.InferenceSession;
  try {
    session = await openOrtSession(model, options);
  } catch (e) {
    throw new InferenceError(`${REFUSED} ${runtimeReason(e)}`);
  }
  return {
    inputNames: session.inputNames,
    outputNames: session.outputNames,
    run: (feeds, outputs) => {
      const tensors = Object.fromEntries(Object.entries(feeds).map(([name, t]) => [name, ortTensor(t)]));
      return (outputs ? session.run(tensors, outputs as string[]) : session.run(tensors)).catch((e: unknown) => {
        throw new InferenceError(`onnxruntime failed to run the model: ${runtimeReason(e)}`);
      });
    },
    release: () => session.release(),
  };
}

/** A float32 tensor. */
export function float32Tensor(data: Float32Array, dims: readonly number[]): ort.Tensor {
  return new ort.Tensor('float32', data, dims as number[]);
}

const ORT_TYPE_NAMES: Readonly<Record<number, ort.Tensor.Type>> = {
  [DataType.FLOAT]: 'float32',
  [DataType.DOUBLE]: 'float64',
  [DataType.FLOAT16]: 'float16',
  [DataType.INT8]: 'int8',
  [DataType.UINT8]: 'uint8',
  [DataType.INT16]: 'int16',
  [DataType.UINT16]: 'uint16',
  [DataType.INT32]: 'int32',
  [DataType.UINT32]: 'uint32',
  [DataType.INT64]: 'int64',
  [DataType.UINT64]: 'uint64',
  [DataType.BOOL]: 'bool',
  [DataType.STRING]: 'string',
};

/** Whether onnxruntime-node can pass tensors of this element type in and out (it cannot even load a model with a bfloat16 output). */
export function hasNodeTensorType(dataType: number): boolean {
  return ORT_TYPE_NAMES[dataType] !== undefined;
}

/** A TensorProto (a test set's stored input) as an onnxruntime tensor of the same element type. */
export function tensorFromProto(t: TensorProto): ort.Tensor {
  const type = ORT_TYPE_NAMES[t.data_type ?? 0];
  if (!type)
    throw new UnsupportedModelError(
      `tensor "${t.name ?? ''}" is ${elementTypeName(t.data_type)}, which onnxruntime-node takes no feeds of`,
    );
  const dims = t.dims.map(Number);
  if (type === 'string')
    return new ort.Tensor(
      'string',
      t.string_data.map((b) => new TextDecoder().decode(b)),
      dims,
    );
  return new ort.Tensor(type, readTensor(t), dims);
}

/** Plain type, data and dims of each tensor (what core/evaluate keeps). */
function plain(tensors: Readonly<Record<string, ort.Tensor>>): Record<string, RunTensor> {
  return Object.fromEntries(Object.entries(tensors).map(([k, t]) => [k, { type: t.type, data: t.data, dims: t.dims }]));
}

/**
 * The runtime core/evaluate and core/recovery drive in Node: sessions over model bytes that run the given feeds by
 * index. They run many short runs (a recovery pass per depth of tuned layers, a search's measurements), so their
 * pool threads do not spin between runs.
 */
export function nodeRuntime(feeds: readonly Feeds[], optimization: SessionOptimization = 'basic'): ComparisonRuntime {
  return {
    samples: feeds.length,
    graphOptimization: optimization,
    async open(bytes) {
      const session = await createSession(bytes, 0, optimization, false);
      return {
        run: async (sample, outputs) => plain(await session.run(feeds[sample], outputs)),
        runFeeds: async (given, outputs) => plain(await session.run(given, outputs)),
        release: () => session.release(),
      };
    },
    feeds: (sample) => plain(feeds[sample]),
  };
}

/**
 * onnxruntime-node behind the core's `Runtime` (core/runtime/session.ts), the interface the calibration
 * runner (and the workers' onnxruntime-web) speak: feeds of any element type, outputs as plain typed arrays.
 * `threads` 0 lets onnxruntime choose; `sessions.created` counts the sessions opened (tests read it). Its pool
 * threads do not spin between runs either: calibration folds every run's outputs in JavaScript, and spinning
 * threads would burn the cores that folding needs.
 */
export function ortNodeRuntime(threads = 0, sessions = { created: 0 }): Runtime {
  return {
    async createSession(model, _purpose, _plan, graphOptimization = 'basic') {
      sessions.created++;
      const s = await createSession(model, threads, graphOptimization, false);
      return {
        runner: {
          inputNames: s.inputNames,
          outputNames: s.outputNames,
          run: async (feeds, fetches) => plain(await s.run(feeds, fetches)),
          release: () => s.release(),
        },
        backend: { kind: 'native', threads, fallbackReason: null },
      };
    },
  };
}
