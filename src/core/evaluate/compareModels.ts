/**
 * Runs a float model and its quantized model on the same samples and compares them: output metrics
 * per sample (Quark's), and optionally every intermediate tensor (layer-wise).
 *
 * The runtime is injected, so the same orchestration serves onnxruntime-node in the command line,
 * onnxruntime-web in a worker, and fakes in tests: the caller says how many samples there are and
 * opens a session over model bytes that runs a sample by index. This module decides what to expose
 * (core/calibrate/run/exposeSubgraphs.ts: tensors inside If/Loop/Scan bodies are carried up to the main graph),
 * splits the exposed tensors into chunks when one run's outputs would not
 * fit the memory budget (measured on the first sample), and folds every run into mergeable sums
 * (core/metrics/layerwise.ts). Must not import a runtime or read files.
 */

import { sessionModel, type ModelBytes, type ModelProto } from '../onnx/index.ts';
import { buildGraphIndex, type GraphIndex } from '../onnx/graphIndex.ts';
import { chunkTensors } from '../calibrate/run/expose.ts';
import { exposeAcrossScopes } from '../calibrate/run/exposeSubgraphs.ts';
import { readableBodyTensors, type ScopeStep } from '../onnx/scopes.ts';
import { summarizeSamples, type OutputSummary, type SampleRecord, type FloatArray } from '../metrics/index.ts';
import { exposedNames, pairLayerTensors, type TensorPair } from '../metrics/layerwiseTensors.ts';
import { foldLayerwise, layerwiseTable, type LayerRow, type LayerwiseState } from '../metrics/layerwise.ts';
import { outputMetrics, type OutputMetricOptions } from './outputMetrics.ts';
import { withFloat32Interface } from '../halfFloat/float16.ts';
import { float16BitsToFloat32 } from '../onnx/halfFloat.ts';
import { ComparisonError } from './errors.ts';
import { comparedOutputs } from './comparedOutputs.ts';
import type { RunTensor } from '../runtime/session.ts';
import type { GraphOptimization } from '../runtime/graphOptimization.ts';

/** One output of a run, as onnxruntime (web or node) hands it back: the runtime contract's own type. */
export type { RunTensor };

/** A session over one model's bytes that runs sample `sample`, returning the named outputs. */
export interface SampleSession {
  run(sample: number, outputs: readonly string[]): Promise<Readonly<Record<string, RunTensor>>>;
  /** Runs on the given feeds instead of a sample's (fine-tuning feeds a cut model with kept tensors). Optional. */
  runFeeds?(
    feeds: Readonly<Record<string, RunTensor>>,
    outputs: readonly string[],
  ): Promise<Readonly<Record<string, RunTensor>>>;
  release(): Promise<void>;
}

export interface ComparisonRuntime {
  /** Number of samples; sample indices are 0 … samples − 1, the same inputs for both models. */
  readonly samples: number;
  open(model: ModelBytes): Promise<SampleSession>;
  /**
   * The inputs of sample `sample`, by graph input name. Optional: with it, layer-wise comparison
   * also covers the graph inputs' own quantization (onnxruntime cannot return an input as an output).
   */
  feeds?(sample: number): Readonly<Record<string, RunTensor>>;
  /**
   * The graph optimization level its sessions run at (./graphOptimization.ts): which figure its measurements are.
   * Absent: 'basic', the model's own Q/DQ arithmetic.
   */
  readonly graphOptimization?: GraphOptimization;
}

export interface CompareOptions extends OutputMetricOptions {
  /** Compare every intermediate tensor too. Default false. */
  readonly layers?: boolean;
  /** With `layers`, compare only these float-model tensors (fewer exposed, fewer runs); default every one. */
  readonly layerTensors?: ReadonlySet<string>;
  /** Most bytes one run of one model may return before layer-wise tensors are split into chunks. Default 256 MiB. */
  readonly budgetBytes?: number;
  /** The float model's graph index, when the caller has it. */
  readonly floatIndex?: GraphIndex;
  /**
   * The float model as its session opens it (floatSessionModel of the same float model), when the caller compares one
   * float model with several quantized ones: not encoded again for each. Used where no layer is compared.
   */
  readonly floatSession?: ModelBytes;
  readonly onProgress?: (done: number, total: number) => void;
  /** Each sample's model outputs as they come (task-level evaluation decodes them: core/task). */
  readonly onOutputs?: (
    sample: number,
    float: Readonly<Record<string, RunTensor>>,
    quant: Readonly<Record<string, RunTensor>>,
  ) => void;
}

export interface LayerwiseResult {
  readonly pairs: readonly TensorPair[];
  /** Float tensors the quantized model no longer has (folded by graph preparation). */
  readonly missing: readonly string[];
  readonly state: LayerwiseState;
  /** The table in topological order (see sortByError for the worst first). */
  readonly rows: LayerRow[];
  /** Runs per sample and model (1 unless the exposed tensors did not fit the budget). */
  readonly chunks: number;
}

export interface Comparison {
  readonly samples: number;
  /** The compared outputs' names, in the float model's order. */
  readonly outputNames: readonly string[];
  /** Outputs not compared: integer, bool or string ones (comparedOutputs.ts). */
  readonly skippedOutputs: readonly { readonly name: string; readonly type: string }[];
  readonly records: readonly SampleRecord[];
  readonly outputs: readonly OutputSummary[];
  readonly layerwise?: LayerwiseResult;
  /** Seconds spent running each model (all chunks), and in all. */
  readonly seconds: { readonly float: number; readonly quantized: number; readonly total: number };
}

export { ComparisonError };

/**
 * The float32 and float16 values of a run, as float32 (each float16 is exact there): a float16 model's tensors are
 * compared layer by layer too; its interface is float32 already (withFloat32Interface).
 */
function floatValues(outputs: Readonly<Record<string, RunTensor>>): Record<string, FloatArray> {
  const values: Record<string, FloatArray> = {};
  for (const [k, t] of Object.entries(outputs)) {
    if (t.type === 'float32') values[k] = t.data as Float32Array;
    else if (t.type === 'float16') values[k] = halfToFloat32(t.data);
  }
  return values;
}

/** A float16 tensor's data as float32: onnxruntime hands its bits as a Uint16Array (a Float16Array where one exists). */
function halfToFloat32(data: unknown): Float32Array {
  return data instanceof Uint16Array ? float16BitsToFloat32(data) : Float32Array.from(data as ArrayLike<number>);
}

/** The run's outputs keyed by the tensors they carry (a body tensor is returned under the name that carried it up). */
function byTensor(
  outputs: Readonly<Record<string, RunTensor>>,
  tensorOf: ReadonlyMap<string, string>,
): Readonly<Record<string, RunTensor>> {
  if (tensorOf.size === 0) return outputs;
  const out: Record<string, RunTensor> = {};
  for (const [k, t] of Object.entries(outputs)) out[tensorOf.get(k) ?? k] = t;
  return out;
}

function byteSize(t: RunTensor): number {
  return (t.data as ArrayBufferView | undefined)?.byteLength ?? 0;
}

/** Runs both models on every sample and compares them. Throws ComparisonError when the outputs do not correspond. */
export async function compareModels(
  floatSource: ModelProto,
  quantSource: ModelProto,
  runtime: ComparisonRuntime,
  options: CompareOptions = {},
): Promise<Comparison> {
  const start = performance.now();
  // FP16 models are fed and compared in float32 (Casts at their interface; their inside is unchanged).
  const floatModel = withFloat32Interface(floatSource);
  const quantModel = withFloat32Interface(quantSource);
  const { compared: outputNames, skipped: skippedOutputs } = comparedOutputs(floatModel);
  const quantOutputs = new Set(quantModel.graph!.output.map((o) => o.name ?? ''));
  const absent = outputNames.filter((n) => !quantOutputs.has(n));
  if (absent.length)
    throw new ComparisonError(
      `the quantized model has no output named ${absent.map((n) => `"${n}"`).join(', ')}: compare a model with its own quantization`,
    );

  let floatSeconds = 0;
  let quantSeconds = 0;
  const timed = async <T>(which: 'float' | 'quant', f: () => Promise<T>): Promise<T> => {
    const t = performance.now();
    try {
      return await f();
    } finally {
      const s = (performance.now() - t) / 1000;
      if (which === 'float') floatSeconds += s;
      else quantSeconds += s;
    }
  };

  const pairing = options.layers
    ? pairLayerTensors(
        floatModel,
        quantModel,
        (floatModel === floatSource ? options.floatIndex : undefined) ?? buildGraphIndex(floatModel.graph!),
      )
    : undefined;
  const pairs = (pairing?.pairs ?? []).filter((p) => !options.layerTensors || options.layerTensors.has(p.tensor));
  // Body tensors (If/Loop/Scan) among the pairs are carried up to the main graph to be read.
  const noBodies: ReadonlyMap<string, readonly ScopeStep[]> = new Map();
  const bodyPairs = pairing ? readableBodyTensors(floatModel) : noBodies;
  const floatBodies = pairs.some((p) => bodyPairs.has(p.tensor)) ? bodyPairs : noBodies;
  const quantBodies = floatBodies.size > 0 ? readableBodyTensors(quantModel) : noBodies;
  const records: SampleRecord[] = [];
  let state: LayerwiseState = new Map();
  const budget = options.budgetBytes ?? 256 * 2 ** 20;

  type Chunk = {
    pairs: readonly TensorPair[];
    float: SampleSession;
    quant: SampleSession;
    floatNames: readonly string[];
    quantNames: readonly string[];
    /** Exposed output name → the body tensor it carries, per model. */
    floatTensorOf: ReadonlyMap<string, string>;
    quantTensorOf: ReadonlyMap<string, string>;
  };
  let chunks: Chunk[] = [];
  const openChunk = async (chunkPairs: readonly TensorPair[], withOutputs: boolean): Promise<Chunk> => {
    const names = exposedNames(chunkPairs, withOutputs ? { float: outputNames, quant: outputNames } : {});
    const inputs = new Set(floatModel.graph!.input.map((v) => v.name ?? ''));
    if (options.layers) {
      const f = exposeAcrossScopes(floatModel, names.float, floatBodies);
      const q = exposeAcrossScopes(quantModel, names.quant, quantBodies);
      return {
        pairs: chunkPairs,
        float: await runtimeOpen(runtime, { ...floatModel, graph: f.graph }),
        quant: await runtimeOpen(runtime, { ...quantModel, graph: q.graph }),
        floatNames: f.outputs,
        quantNames: q.outputs,
        floatTensorOf: f.tensorOf,
        quantTensorOf: q.tensorOf,
      };
    }
    return {
      pairs: chunkPairs,
      float: await (options.floatSession ? runtime.open(options.floatSession) : runtimeOpen(runtime, floatModel)),
      quant: await runtimeOpen(runtime, quantModel),
      floatNames: names.float.filter((n) => !inputs.has(n)),
      quantNames: names.quant.filter((n) => !inputs.has(n)),
      floatTensorOf: new Map(),
      quantTensorOf: new Map(),
    };
  };

  try {
    for (let sample = 0; sample < runtime.samples; sample++) {
      if (sample === 0) chunks = [await openChunk(pairs, true)];
      const runs: {
        pairs: readonly TensorPair[];
        float: Readonly<Record<string, RunTensor>>;
        quant: Readonly<Record<string, RunTensor>>;
      }[] = [];
      for (const chunk of chunks) {
        const f = byTensor(await timed('float', () => chunk.float.run(sample, chunk.floatNames)), chunk.floatTensorOf);
        const q = byTensor(await timed('quant', () => chunk.quant.run(sample, chunk.quantNames)), chunk.quantTensorOf);
        runs.push({ pairs: chunk.pairs, float: f, quant: q });
      }
      if (sample === 0 && options.layers && chunks.length === 1) {
        // Too much for one run? Split by the float tensors' sizes (the quantized side returns up to two per pair).
        // This sample's values are already here; the chunks serve from the next sample on.
        const sizes = new Map(Object.entries(runs[0].float).map(([k, t]) => [k, byteSize(t)]));
        const total = [...sizes.values()].reduce((a, b) => a + b, 0);
        if (total * 3 > budget) {
          const groups = chunkTensors(
            pairs.map((p) => p.tensor),
            sizes,
            budget / 3,
          );
          const byTensor = new Map(pairs.map((p) => [p.tensor, p]));
          await Promise.all(chunks.map((c) => Promise.all([c.float.release(), c.quant.release()])));
          chunks = [];
          for (let k = 0; k < groups.length; k++)
            chunks.push(
              await openChunk(
                groups[k].map((t) => byTensor.get(t)!),
                k === 0,
              ),
            );
        }
      }
      const first = runs[0];
      const f0 = floatValues(first.float);
      const q0 = floatValues(first.quant);
      for (const name of outputNames) {
        const a = first.float[name];
        const b = first.quant[name];
        if (!a || !b || a.type !== 'float32' || b.type !== 'float32') {
          throw new ComparisonError(
            `output "${name}" is ${a?.type ?? 'missing'} in the float model and ${b?.type ?? 'missing'} in the quantized one: only float32 outputs are compared`,
          );
        }
        records.push({ output: name, metrics: outputMetrics(f0[name], q0[name], a.dims, options) });
      }
      options.onOutputs?.(sample, first.float, first.quant);
      if (options.layers) {
        const inputs = runtime.feeds ? floatValues(runtime.feeds(sample)) : {};
        for (const run of runs)
          state = foldLayerwise(
            state,
            run.pairs,
            { ...inputs, ...floatValues(run.float) },
            { ...inputs, ...floatValues(run.quant) },
          );
      }
      options.onProgress?.(sample + 1, runtime.samples);
    }
  } finally {
    await Promise.all(chunks.map((c) => Promise.all([c.float.release(), c.quant.release()])));
  }

  const layerwise: LayerwiseResult | undefined = pairing
    ? { pairs, missing: pairing.missing, state, rows: layerwiseTable(state, pairs), chunks: chunks.length }
    : undefined;
  return {
    samples: runtime.samples,
    outputNames,
    skippedOutputs,
    records,
    outputs: summarizeSamples(records),
    layerwise,
    seconds: { float: floatSeconds, quantized: quantSeconds, total: (performance.now() - start) / 1000 },
  };
}

function runtimeOpen(runtime: ComparisonRuntime, model: ModelProto): Promise<SampleSession> {
  return runtime.open(sessionModel(model));
}

/**
 * The float model as compareModels opens it where no layer is compared: float32 at its interface (a float16 model's
 * inside unchanged), encoded for a session. Encoding ISNet's 88 MB file took about 0.1 s of each held-in candidate's
 * comparison.
 */
export function floatSessionModel(floatSource: ModelProto): ModelBytes {
  return sessionModel(withFloat32Interface(floatSource));
}
