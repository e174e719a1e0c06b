/**
 * onnxruntime-node for the command line and the Node tests: the only importer of onnxruntime-node.
 *
 * Sessions run at graph optimization level 'basic', where native and web onnxruntime agree to 1e-6
 * (NOTES.md); 'all' differed by 0.2 % on one model, which would blur float-vs-quantized comparisons.
 */
import * as ort from 'onnxruntime-node';

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
