/**
 * The evaluation worker's API: judge a quantized model against its float model on images, layer by
 * layer, and search for exclusions that bring the output cosine up to a target, measuring each step.
 *
 * The worker holds its own decoded copy of the float model (bytes transferred in from the model
 * worker, as calibration workers do) and runs onnxruntime-web: like a calibration worker it is
 * disposable (onnxruntime returns WASM memory only when its worker ends). The quantized model of an
 * evaluation comes in as the Blob the page already holds; the search quantizes its own candidates
 * here with the core's quantizer and the calibrated ranges. This object keeps the models by handle and
 * starts each run (cancellation, thinned progress); the runs live beside it: evaluateRun.ts (the comparison
 * and its report, comparisonReport.ts), suggestRun.ts (the exclusion search), taskFigures.ts; the
 * histograms and the parity check are short enough to stay here.
 *
 * Plain object like calibrationApi: tests build it with onnxruntime-node and a fake decoder, and
 * evaluation.worker.ts only wires the browser's runtime and image decoder to it.
 */
import { openModel } from '../../src/core/onnx/index.ts';
import { ComparisonError } from '../../src/core/evaluate/compareModels.ts';
import { type ReportFile, type ReportTask } from '../../src/core/report/index.ts';
import type { ImageDecoder } from '../../src/core/calibrate/run/samples.ts';
import { recognizeHead, type TaskHead } from '../../src/core/task/index.ts';
import type { BackendPreference, Runtime } from '../../src/core/runtime/session.ts';
import { rangesFromTable } from '../../src/core/calibrate/run/rangeTable.ts';
import { sha256Hex } from '../../src/core/report/sha256.ts';
import { runParity, type ParityResult, type ParityRuntime } from '../../src/core/evaluate/parity.ts';
import { HandleTable } from '../runtime/handles.ts';
import { readExternalFiles } from '../runtime/externalFiles.ts';
import { throttledProgress } from '../runtime/throttledProgress.ts';
import { activationHistograms } from './activationHistograms.ts';
import { comparisonRuntime } from './comparisonRuntime.ts';
import { evaluateQuantized } from './evaluateRun.ts';
import { decodeSamples, openQuantized, withToken, type EvaluationRun, type HeldEvaluation } from './heldEvaluation.ts';
import { suggestOn } from './suggestRun.ts';
import { taskFigures } from './taskFigures.ts';
import type {
  EvaluationOpenOptions,
  EvaluationModel,
  EvaluationRequest,
  TensorHistogramRequest,
  TensorHistograms,
  EvaluationProgressCallback,
  EvaluationResult,
  SuggestRequest,
  SuggestOutcome,
  ParityRequest,
} from './evaluationTypes.ts';

export { EvaluationCancelledError, NoEvaluationDataError } from '../../src/core/evaluate/errors.ts';
export type * from './evaluationTypes.ts';

export interface EvaluationApiDeps {
  runtime(preference: BackendPreference, threads?: number): Runtime;
  decodeImage: ImageDecoder;
  /** The runtimes of the parity check, WASM first (workers/runtime/ort.ts parityRuntimes), and those missing. */
  parityRuntimes?(threads?: number): Promise<{ available: ParityRuntime[]; unavailable: ParityResult['unavailable'] }>;
}

/** Samples the parity check runs at most (the first evaluation samples): every runtime runs both models on each. */
export const PARITY_SAMPLES = 4;

export function createEvaluationApi(deps: EvaluationApiDeps) {
  const held = new HandleTable<HeldEvaluation>('evaluation');

  /**
   * Runs `body` on the model of `handle` with a fresh cancellation token and the caller's progress thinned (at most
   * about ten a second, always a phase's end and a search's measured step).
   */
  async function runOn<T>(
    handle: string,
    onProgress: EvaluationProgressCallback | undefined,
    body: (run: EvaluationRun) => Promise<T>,
  ): Promise<T> {
    const h = held.get(handle);
    const progress = throttledProgress(onProgress, 100, (p) => p.measured !== undefined);
    return withToken(h, (check) => body({ held: h, check, progress, decodeImage: deps.decodeImage }));
  }

  return {
    /** Decodes the float model for evaluation; the bytes stay here. Throws the core's named errors. */
    async open(bytes: ArrayBuffer, options: EvaluationOpenOptions): Promise<EvaluationModel> {
      const data = new Uint8Array(bytes);
      const external = await readExternalFiles(options.externalFiles);
      const { model, index, summary } = openModel(data, { fileName: options.fileName, externalData: external });
      if (summary.quantization.state !== 'float') {
        throw new ComparisonError(
          `"${options.fileName}" is already quantized: evaluation compares a float model with its quantization.`,
        );
      }
      const file: ReportFile = { name: options.fileName, sha256: await sha256Hex(data), bytes: data.byteLength };
      // Both models on the CPU (WASM) backend: see evaluation/comparisonRuntime.ts.
      const runtime = deps.runtime('wasm', options.threads);
      // A float16 model is fed float32 (compareModels puts Casts at its interface).
      const inputs = summary.inputs.map((i) => (i.elemType === 'float16' ? { ...i, elemType: 'float32' } : i));
      const head = recognizeHead(summary);
      const handle = held.add({
        model,
        index,
        head,
        inputs,
        outputs: summary.outputs,
        file,
        runtime,
        threads: options.threads,
        active: new Set(),
      });
      return { handle, inputs, file, head };
    },

    /**
     * The task figures of the last evaluation read through another head (a decoder or threshold the user changed):
     * the outputs kept from that evaluation, no model run. Null when the last evaluation had no image samples
     * (nothing to judge a task on). TaskHeadError when the outputs do not fit the head.
     */
    async judgeTask(handle: string, head: TaskHead): Promise<ReportTask | null> {
      const h = held.get(handle);
      const last = h.lastOutputs;
      return last ? taskFigures(head, last.request, last.data, last.outputs, h.outputs, deps.decodeImage) : null;
    },

    /**
     * Runs the float and the quantized model on the samples and compares them (outputs, and every
     * intermediate tensor unless `layers` is false); returns the report and the per-node SQNR.
     * Corrupt samples are skipped and listed. Named errors: NoEvaluationDataError,
     * NoUsableSamplesError, ComparisonError (a model that is not this one's quantization),
     * EvaluationCancelledError.
     */
    async evaluate(
      handle: string,
      request: EvaluationRequest,
      onProgress?: EvaluationProgressCallback,
    ): Promise<EvaluationResult> {
      return runOn(handle, onProgress, (run) => evaluateQuantized(run, request));
    },

    /**
     * "Suggest exclusions": the core's greedy search (core/search/suggest.ts), each candidate
     * quantized here with the calibrated ranges and measured on the samples, layer by layer. Progress
     * reports every measured step. Named errors as `evaluate`, plus the quantizer's (ConfigError, …).
     */
    async suggest(
      handle: string,
      request: SuggestRequest,
      onProgress?: EvaluationProgressCallback,
    ): Promise<SuggestOutcome> {
      return runOn(handle, onProgress, (run) => suggestOn(run, request));
    },

    /**
     * Histograms of the float values of `tensors` over the first few samples (one run of the float
     * model with just those tensors exposed, workers/evaluation/activationHistograms.ts). Named
     * errors: NoEvaluationDataError, NoUsableSamplesError, EvaluationCancelledError.
     */
    async tensorHistograms(handle: string, request: TensorHistogramRequest): Promise<TensorHistograms> {
      return runOn(handle, undefined, async (run) => {
        const start = performance.now();
        const samples = request.samples.slice(0, Math.max(1, request.maxSamples ?? 4));
        const data = await decodeSamples(run, samples, request.spec);
        const runtime = comparisonRuntime(run.held.runtime, data.feeds, run.check);
        const found = await activationHistograms(run.held.model, rangesFromTable(request.tensors), runtime);
        return {
          histograms: Object.fromEntries(found),
          used: data.feeds.length,
          skipped: data.skipped,
          seconds: (performance.now() - start) / 1000,
        };
      });
    },

    /**
     * Parity across runtimes (core/evaluate/parity.ts): the float and the quantized model on every runtime this
     * browser has, against the WASM float reference, with the first node where a runtime parts from WASM.
     * Named errors as evaluate's; a runtime that fails gets its error in its row.
     */
    async parity(
      handle: string,
      request: ParityRequest,
      onProgress?: EvaluationProgressCallback,
    ): Promise<ParityResult> {
      return runOn(handle, onProgress, async (run) => {
        const { quant } = await openQuantized(run.held, request.quantized);
        const samples = request.samples.slice(0, Math.max(1, request.maxSamples ?? PARITY_SAMPLES));
        const data = await decodeSamples(run, samples, request.spec);
        if (!deps.parityRuntimes) throw new ComparisonError('This build has no parity runtimes.');
        const { available, unavailable } = await deps.parityRuntimes(run.held.threads);
        run.check();
        const result = await runParity(run.held.model, quant, available, data.feeds, {
          check: run.check,
          onProgress: (done, total) => run.progress({ phase: 'parity', done, total }),
        });
        return { ...result, unavailable };
      });
    },

    /** Asks the running evaluation or search of `handle` to stop before its next inference. */
    cancel(handle: string): void {
      if (held.has(handle)) for (const token of held.get(handle).active) token.cancelled = true;
    },

    close(handle: string): void {
      held.delete(handle);
    },
  };
}

export type EvaluationApi = ReturnType<typeof createEvaluationApi>;
