/**
 * onnxruntime-node for the command line and the Node tests: the only importer of onnxruntime-node.
 *
 * Sessions run at graph optimization level 'basic', where native and web onnxruntime agree to 1e-6
 * (NOTES.md); 'all' differed by 0.2 % on one model, which would blur float-vs-quantized comparisons.
 */
import * as ort from 'onnxruntime-node';
import type { Feed, Runtime, RunTensor } from '../../core/runtime/session.ts';

export type OrtTensor = ort.Tensor;
export type Feeds = Record<string, ort.Tensor>;

export interface NodeSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Feeds, outputs?: readonly string[]): Promise<Record<string, ort.Tensor>>;
  release(): Promise<void>;
}

/** A session over model bytes (or a path). */
export async function createSession(model: Uint8Array | string, threads = 0): Promise<NodeSession> {
  const options: ort.InferenceSession.SessionOptions = {
    graphOptimizationLevel: 'basic',
    intraOpNumThreads: threads,
    logSeverityLevel: 3,
  };
  const session = typeof model === 'string'
    ? await ort.InferenceSession.create(model, options)
    : await ort.InferenceSession.create(model, options);
  return {
    inputNames: session.inputNames,
    outputNames: session.outputNames,
    run: (feeds, outputs) => (outputs ? session.run(feeds, outputs as string[]) : session.run(feeds)),
    release: () => session.release(),
  };
}

/** A float32 tensor. */
export function float32Tensor(data: Float32Array, dims: readonly number[]): ort.Tensor {
  return new ort.Tensor('float32', data, dims as number[]);
}

/**
 * onnxruntime-node behind the core's `Runtime` (core/runtime/session.ts), the interface the calibration
 * runner (and the workers' onnxruntime-web) speak: feeds of any element type, outputs as plain typed arrays.
 * `threads` 0 lets onnxruntime choose; `sessions.created` counts the sessions opened (tests read it).
 */
export function ortNodeRuntime(threads = 0, sessions = { created: 0 }): Runtime {
  return {
    async createSession(model) {
      sessions.created++;
      const s = await createSession(model, threads);
      return {
        runner: {
          inputNames: s.inputNames,
          outputNames: s.outputNames,
          async run(feeds: Readonly<Record<string, Feed>>, fetches?: readonly string[]) {
            const tensors: Feeds = {};
            for (const [name, f] of Object.entries(feeds)) tensors[name] = new ort.Tensor(f.type, f.data, f.dims as number[]);
            const out = await s.run(tensors, fetches);
            const result: Record<string, RunTensor> = {};
            for (const [name, t] of Object.entries(out)) result[name] = { type: t.type, data: t.data, dims: t.dims };
            return result;
          },
          release: () => s.release(),
        },
        backend: { kind: 'native', threads, fallbackReason: null },
      };
    },
  };
}
