/**
 * What the evaluation worker keeps of an open float model (HeldEvaluation), and the steps every run on it starts
 * from (EvaluationRun): its cancellation check and progress, the quantized model read and checked against the
 * float one, the samples decoded into feeds. Must not compare, search or build a report.
 */
import { openModel, type GraphIndex, type ModelProto, type TensorSummary } from '../../src/core/onnx/index.ts';
import { ComparisonError } from '../../src/core/evaluate/compareModels.ts';
import { EvaluationCancelledError } from '../../src/core/evaluate/errors.ts';
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import type { CalibrationSample, ImageDecoder } from '../../src/core/calibrate/run/samples.ts';
import type { ReportFile } from '../../src/core/report/index.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';
import type { HeadGuess, RunOutputs } from '../../src/core/task/index.ts';
import { readExternalFiles } from '../runtime/externalFiles.ts';
import { loadFeeds, type EvaluationFeeds } from './feeds.ts';
import type { EvaluationProgressCallback, EvaluationRequest } from './evaluationTypes.ts';

export interface HeldEvaluation {
  model: ModelProto;
  head: HeadGuess;
  index: GraphIndex;
  inputs: TensorSummary[];
  /** The model's outputs (their shapes fix a head's class count, for labels). */
  outputs: readonly TensorSummary[];
  file: ReportFile;
  runtime: Runtime;
  /** WASM threads this worker's sessions may use. */
  threads?: number;
  /** Cancellation flags of the runs started and not finished (a cancel stops them all). */
  active: Set<{ cancelled: boolean }>;
  /** The last evaluation's outputs on image samples: another head is judged on them without running the models again. */
  lastOutputs?: {
    request: EvaluationRequest;
    data: EvaluationFeeds;
    outputs: { float: RunOutputs; quant: RunOutputs }[];
  };
}

/** One run (an evaluation, a search, histograms, parity) on a held model. */
export interface EvaluationRun {
  held: HeldEvaluation;
  /** Throws EvaluationCancelledError once the run was cancelled. */
  check: () => void;
  /** The caller's progress, thinned. */
  progress: EvaluationProgressCallback;
  decodeImage: ImageDecoder;
}

/** Runs `body` with a fresh cancellation token of `h`; EvaluationCancelledError once cancelled. */
export async function withToken<T>(h: HeldEvaluation, body: (check: () => void) => Promise<T>): Promise<T> {
  const token = { cancelled: false };
  h.active.add(token);
  const check = () => {
    if (token.cancelled) throw new EvaluationCancelledError('The evaluation was cancelled.');
  };
  try {
    return await body(check);
  } finally {
    h.active.delete(token);
  }
}

/** The quantized model must take the float model's inputs: otherwise it was made from another model. */
function checkSameInputs(float: ModelProto, quant: ModelProto, quantName: string): void {
  const inits = (m: ModelProto) => new Set(m.graph!.initializer.map((t) => t.name ?? ''));
  const inputs = (m: ModelProto) => {
    const skip = inits(m);
    return m
      .graph!.input.map((v) => v.name ?? '')
      .filter((n) => !skip.has(n))
      .sort();
  };
  const a = inputs(float);
  const b = inputs(quant);
  if (a.join('\u0000') !== b.join('\u0000')) {
    throw new ComparisonError(
      `"${quantName}" takes the inputs ${b.map((n) => `"${n}"`).join(', ') || '(none)'}, the float model ${a.map((n) => `"${n}"`).join(', ')}: it is not a quantization of this model.`,
    );
  }
}

/** The quantized model of a request, read and checked against the float one (ComparisonError otherwise). */
export async function openQuantized(
  h: HeldEvaluation,
  quantized: EvaluationRequest['quantized'],
): Promise<{ quant: ModelProto; quantBytes: Uint8Array }> {
  const quantBytes = new Uint8Array(
    quantized.data instanceof Blob ? await quantized.data.arrayBuffer() : quantized.data,
  );
  let quant: ModelProto;
  try {
    quant = openModel(quantBytes, {
      fileName: quantized.name,
      externalData: await readExternalFiles(quantized.externalData),
    }).model;
  } catch (e) {
    throw new ComparisonError(`"${quantized.name}" could not be read as an ONNX model: ${(e as Error).message}`);
  }
  checkSameInputs(h.model, quant, quantized.name);
  return { quant, quantBytes };
}

/** The run's samples as feeds of the held model's inputs, 'decoding' progress after each; a cancel stops between samples. */
export async function decodeSamples(
  run: EvaluationRun,
  samples: readonly CalibrationSample[],
  spec: PreprocessSpec | null,
): Promise<EvaluationFeeds> {
  return loadFeeds(samples, run.held.inputs, spec, run.decodeImage, {
    cancelled: () => {
      run.check();
      return false;
    },
    onSample: (done, total) => run.progress({ phase: 'decoding', done, total }),
  });
}
