/**
 * onnxruntime-node for the command line and the Node tests: the only importer of onnxruntime-node.
 *
 * Sessions run at graph optimization level 'basic', where native and web onnxruntime agree to 1e-6
 * (NOTES.md); 'all' differed by 0.2 % on one model, which would blur float-vs-quantized comparisons.
 */
import * as ort from 'onnxruntime-node';
import { DataType, elementTypeName, readTensor, UnsupportedModelError, type TensorProto } from '../../core/onnx/index.ts';

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

const ORT_TYPE_NAMES: Readonly<Record<number, ort.Tensor.Type>> = {
  [DataType.FLOAT]: 'float32', [DataType.DOUBLE]: 'float64', [DataType.FLOAT16]: 'float16',
  [DataType.INT8]: 'int8', [DataType.UINT8]: 'uint8', [DataType.INT16]: 'int16', [DataType.UINT16]: 'uint16',
  [DataType.INT32]: 'int32', [DataType.UINT32]: 'uint32', [DataType.INT64]: 'int64', [DataType.UINT64]: 'uint64',
  [DataType.BOOL]: 'bool', [DataType.STRING]: 'string',
};

/** Whether onnxruntime-node can pass tensors of this element type in and out (it cannot even load a model with a bfloat16 output). */
export function hasNodeTensorType(dataType: number): boolean {
  return ORT_TYPE_NAMES[dataType] !== undefined;
}

/** A TensorProto (a test set's stored input) as an onnxruntime tensor of the same element type. */
export function tensorFromProto(t: TensorProto): ort.Tensor {
  const type = ORT_TYPE_NAMES[t.data_type ?? 0];
  if (!type) throw new UnsupportedModelError(`tensor "${t.name ?? ''}" is ${elementTypeName(t.data_type)}, which onnxruntime-node takes no feeds of`);
  const dims = t.dims.map(Number);
  if (type === 'string') return new ort.Tensor('string', t.string_data.map((b) => new TextDecoder().decode(b)), dims);
  return new ort.Tensor(type, readTensor(t), dims);
}
