/**
 * The evaluation worker's API: judge a quantized model against its float model on images, layer by
 * layer, and search for exclusions that bring the output cosine up to a target, measuring each step.
 *
 * The worker holds its own decoded copy of the float model (bytes transferred in from the model
 * worker, as calibration workers do) and runs onnxruntime-web: like a calibration worker it is
 * disposable (onnxruntime returns WASM memory only when its worker ends). The quantized model of an
 * evaluation comes in as the Blob the page already holds; the search quantizes its own candidates
 * here with the core's quantizer and the calibrated ranges. The comparison, the metrics, the greedy
 * search and the report are the core's (core/evaluate, core/report); this object wires them to
 * samples, a runtime, progress (a callback, at most about ten times a second) and `cancel`.
 *
 * Plain object like calibrationApi: tests build it with onnxruntime-node and a fake decoder, and
 * evaluation.worker.ts only wires the browser's runtime and image decoder to it.
 */
import { openModel, type GraphIndex, type ModelProto, type TensorSummary } from '../../src/core/onnx/index.ts';
import { compareModels, ComparisonError, type Comparison } from '../../src/core/evaluate/compareModels.ts';
import { tailSubgraph } from '../../src/core/search/candidates.ts';
import { suggestExclusions } from '../../src/core/search/suggest.ts';
import { suggestMeasure } from '../../src/core/search/suggestMeasure.ts';
import { qdqGrids } from '../../src/core/evaluate/qdqGrids.ts';
import { compareAsNpu, npuReportInput, type NpuFigure } from '../../src/core/evaluate/npuFigure.ts';
import { nodeErrors } from '../../src/core/metrics/layerwiseJumps.ts';
import {
  buildReport,
  type Report,
  type ReportFile,
  type ReportHistogram,
  type ReportInput,
  type ReportTask,
  type ReportTiming,
} from '../../src/core/report/index.ts';
import { ConfigError, validateConfig } from '../../src/core/quantize/config.ts';
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import type { CalibrationSample, ImageDecoder } from '../../src/core/calibrate/run/samples.ts';
import { comparisonRuntime } from './comparisonRuntime.ts';
import { EvaluationCancelledError } from '../../src/core/evaluate/errors.ts';
import { loadFeeds, type EvaluationFeeds } from './feeds.ts';
import { judgesTask, taskSample, taskTargetReading } from './taskRuns.ts';
import { LadderTargetError, parseLadderTarget } from '../../src/core/recovery/ladder.ts';
import { targetMeasure } from '../../src/core/recovery/targetMeasure.ts';
import { activationHistograms } from './activationHistograms.ts';
import type { BackendPreference } from '../../src/core/runtime/session.ts';
import type { Runtime } from '../../src/core/runtime/session.ts';
import { HandleTable } from '../runtime/handles.ts';
import { readExternalFiles } from '../runtime/externalFiles.ts';
import { rangesFromTable } from '../../src/core/calibrate/run/rangeTable.ts';
import { sha256Hex } from '../../src/core/report/sha256.ts';
import { runParity, type ParityResult, type ParityRuntime } from '../../src/core/evaluate/parity.ts';
import {
  evaluateTask,
  recognizeHead,
  TaskHeadError,
  TaskLabelError,
  readLabelSource,
  runOutputs,
  taskReport,
  type HeadGuess,
  type RunOutputs,
  type TaskHead,
  type TaskSample,
} from '../../src/core/task/index.ts';
import type {
  EvaluationOpenOptions,
  EvaluationModel,
  ReportContext,
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

interface HeldEvaluation {
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

/** Progress at most every `ms` milliseconds, and always when a phase finishes. */
function throttled(callback: EvaluationProgressCallback | undefined, ms = 100): EvaluationProgressCallback {
  let last = -Infinity;
  return (p) => {
    if (!callback) return;
    const now = performance.now();
    if (now - last < ms && p.done < p.total && !p.measured) return;
    last = now;
    callback(p);
  };
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

/** An image file as a data URL, for the task pictures (the page and the downloaded report alike). */
async function blobDataUrl(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${blob.type || 'image/jpeg'};base64,${btoa(text)}`;
}

/** The task figures of an evaluation and its pictures (the 8 worst images), each photo embedded. */
async function taskFigures(
  given: TaskHead,
  request: EvaluationRequest,
  data: EvaluationFeeds,
  outputs: readonly { float: RunOutputs; quant: RunOutputs }[],
  modelOutputs: readonly TensorSummary[],
  decodeImage: EvaluationApiDeps['decodeImage'],
): Promise<ReportTask> {
  // The page's files as the core's reader takes them (the CLI lists a folder the same way).
  const read = request.labels
    ? await readLabelSource(
        request.labels.name,
        request.labels.files.map(({ path, file }) => ({
          path,
          read: async () => new Uint8Array(await file.arrayBuffer()),
        })),
        given,
        modelOutputs,
        data.names.map((name, i) => ({ name, width: data.sizes[i]?.width ?? 0, height: data.sizes[i]?.height ?? 0 })),
        (_path, bytes) => decodeImage(new Blob([bytes as BlobPart], { type: 'image/png' })),
      )
    : null;
  const labels = read?.labels ?? null;
  // A recognizer's dictionary found among the labels' files decodes its text.
  const head = read?.head ?? given;
  const samples: TaskSample[] = data.feeds.map((_, i) => {
    const sample = taskSample(data, request.spec!, i, outputs[i]);
    return labels ? { ...sample, label: labels.get(sample.name) } : sample;
  });
  const evaluation = evaluateTask(head, samples);
  const photos = new Map<string, string>();
  for (const r of evaluation.perImage.slice(0, 8)) {
    const sample = request.samples[data.indices[r.index]];
    if (sample?.kind === 'image') photos.set(r.name, await blobDataUrl(sample.file));
  }
  return taskReport(evaluation, (name) => photos.get(name) ?? null, 8);
}

export function createEvaluationApi(deps: EvaluationApiDeps) {
  const held = new HandleTable<HeldEvaluation>('evaluation');

  /** Runs `body` with a fresh cancellation token of `h`; EvaluationCancelledError once cancelled. */
  async function withToken<T>(h: HeldEvaluation, body: (check: () => void) => Promise<T>): Promise<T> {
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

  /** The quantized model of a request, read and checked against the float one (ComparisonError otherwise). */
  async function openQuantized(
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

  async function decodeSamples(
    h: HeldEvaluation,
    samples: readonly CalibrationSample[],
    spec: PreprocessSpec | null,
    check: () => void,
    progress: EvaluationProgressCallback,
  ): Promise<EvaluationFeeds> {
    return loadFeeds(samples, h.inputs, spec, deps.decodeImage, {
      cancelled: () => {
        check();
        return false;
      },
      onSample: (done, total) => progress({ phase: 'decoding', done, total }),
    });
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
      const h = held.get(handle);
      const progress = throttled(onProgress);
      return withToken(h, async (check) => {
        const start = performance.now();
        const { quant, quantBytes } = await openQuantized(h, request.quantized);
        const quantFile: ReportFile = {
          name: request.quantized.name,
          sha256: await sha256Hex(quantBytes),
          bytes: quantBytes.byteLength,
        };
        const data = await decodeSamples(h, request.samples, request.spec, check, progress);
        const runtime = comparisonRuntime(h.runtime, data.feeds, check);
        const head =
          request.task === 'none'
            ? null
            : request.task === undefined || request.task === 'auto'
              ? h.head.head
              : request.task;
        // Task figures read boxes and masks on photos: image samples only (their sizes place the boxes). The outputs
        // are kept even without a head, so a head chosen afterwards is judged without running the models again.
        const onImages = judgesTask(data, request.spec);
        const judgeTask = head !== null && onImages;
        const outputs: { float: RunOutputs; quant: RunOutputs }[] = [];
        h.lastOutputs = undefined;
        // First what a user's session computes: onnxruntime-web at its default options (WASM, graph optimization
        // 'all', Q/DQ fused into int8 kernels); outputs only, since an exposed tensor keeps its node out of a fusion.
        const atDefault = await compareModels(h.model, quant, comparisonRuntime(h.runtime, data.feeds, check, 'all'), {
          onProgress: (done, total) => progress({ phase: 'at-default', done, total }),
        });
        // Then the model's own Q/DQ arithmetic ('basic'), every layer: where the error arises.
        const comparison = await compareModels(h.model, quant, runtime, {
          layers: request.layers ?? true,
          floatIndex: h.index,
          onProgress: (done, total) => progress({ phase: 'comparing', done, total }),
          onOutputs: onImages ? (i, f, q) => (outputs[i] = { float: runOutputs(f), quant: runOutputs(q) }) : undefined,
        });
        if (onImages) h.lastOutputs = { request, data, outputs };
        let task: ReportTask | null = null;
        let taskError: EvaluationResult['taskError'];
        try {
          if (judgeTask) task = await taskFigures(head!, request, data, outputs, h.outputs, deps.decodeImage);
        } catch (e) {
          // A head the user chose that these outputs do not fit, or labels that do not fit the images: said by
          // name, never a wrong number; the rest stands.
          if (!(e instanceof TaskHeadError || e instanceof TaskLabelError)) throw e;
          taskError = { name: e.name, message: e.message };
        }
        const ctx = request.report ?? {};
        const timings: ReportTiming[] = [
          { label: 'decoding and preprocessing the samples', seconds: data.seconds },
          { label: "both models at onnxruntime-web's default options ('all')", seconds: atDefault.seconds.total },
        ];
        const defaultFigure = {
          runtime: 'onnxruntime-web (WASM)',
          graphOptimization: 'all' as const,
          outputs: atDefault.outputs,
        };
        let npu: NpuFigure | undefined;
        if (request.npuBf16) {
          npu = await compareAsNpu(h.model, quant, runtime, {
            onProgress: (done, total) => progress({ phase: 'npu', done, total }),
          });
          timings.push({
            label: 'as the NPU runs it (float parts in BF16), both models',
            seconds: npu.comparison.seconds.total,
          });
        }
        let report = buildComparisonReport(
          h,
          quantFile,
          quant,
          comparison,
          ctx,
          timings,
          defaultFigure,
          npu,
          undefined,
          task,
        );
        if (report.ranges.length > 0) {
          // The worst layers are known only now: one more float run for their histograms.
          const t = performance.now();
          const histograms = await activationHistograms(
            h.model,
            new Map(report.ranges.map((r) => [r.tensor, r])),
            runtime,
            (done, total) => progress({ phase: 'histograms', done, total }),
          );
          timings.push({
            label: 'histograms of the worst layers (one float run)',
            seconds: (performance.now() - t) / 1000,
          });
          report = buildComparisonReport(
            h,
            quantFile,
            quant,
            comparison,
            ctx,
            timings,
            defaultFigure,
            npu,
            histograms,
            task,
          );
        }
        const nodeSqnr: Record<string, number> = {};
        if (comparison.layerwise)
          for (const e of nodeErrors(comparison.layerwise.rows, h.index)) nodeSqnr[e.node] = e.sqnr;
        return {
          report,
          nodeSqnr,
          used: data.feeds.length,
          skipped: data.skipped,
          backend: runtime.backend(),
          secondsPerSample: (comparison.seconds.float + comparison.seconds.quantized) / comparison.samples,
          seconds: (performance.now() - start) / 1000,
          ...(taskError ? { taskError } : {}),
        };
      });
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
      const h = held.get(handle);
      const progress = throttled(onProgress);
      return withToken(h, async (check) => {
        const start = performance.now();
        const config = validateConfig(request.config);
        const metric = request.metric ?? 'cosine';
        if (metric === 'cosine' && !(request.target > -1 && request.target <= 1))
          throw new ConfigError('target', `${request.target}: give an output cosine in (-1, 1]`);
        const goal = parseLadderTarget(`${metric}:${request.target}`);
        if (goal.metric !== 'cosine' && request.npuBf16)
          throw new LadderTargetError(
            `"as the NPU runs it" judges the output cosine; a ${goal.metric} target is judged as written: choose one or the other`,
          );
        const maxSteps = request.maxSteps ?? 8;
        const ranges = rangesFromTable(request.ranges);
        const data = await decodeSamples(h, request.samples, request.spec, check, progress);
        const runtime = comparisonRuntime(h.runtime, data.feeds, check);
        const aim = request.aim ?? 'all';
        const aimed = aim === 'basic' ? null : comparisonRuntime(h.runtime, data.feeds, check, aim);
        // The same reading of the target as the ladder's and qstudio suggest's (core targetMeasure).
        const measure =
          goal.metric === 'cosine'
            ? undefined
            : targetMeasure(goal, taskTargetReading(request.task, request.spec, data, goal.metric));
        let measured = 0;
        const stepProgress = () => ({ done: measured, total: maxSteps + 1 });
        const result = await suggestExclusions({
          config,
          target: request.target,
          maxSteps,
          maxTailNodes: request.maxTailNodes,
          tailOf: (id) => tailSubgraph(h.index, id),
          evaluate: suggestMeasure({
            model: h.model,
            index: h.index,
            ranges,
            configName: request.configName,
            runtime,
            // The cosine at the aimed level: the outputs alone again at 'all' (the layers stay at 'basic').
            judge: aimed ?? undefined,
            rankBy: request.rankBy,
            npuBf16: request.npuBf16,
            sequence: goal.metric === 'sequence' ? 'always' : 'auto',
            figure: measure,
            check,
            onProgress: (done, total) => progress({ phase: 'searching', done, total, step: stepProgress() }),
          }),
          onStep(step) {
            measured++;
            // A cancel during a measurement is recorded by the search as a failed step: stop here instead.
            check();
            progress({
              phase: 'searching',
              done: data.feeds.length,
              total: data.feeds.length,
              step: stepProgress(),
              measured: step,
            });
          },
        }).catch((e: unknown) => {
          check(); // the starting measurement failed because of a cancel: say so, not "could not be evaluated"
          throw e;
        });
        return {
          target: request.target,
          metric: goal.metric,
          ...(measure ? { figure: result.figure, startFigure: result.steps[0].figure } : {}),
          aim,
          npuBf16: request.npuBf16 ?? false,
          reached: result.reached,
          stopped: result.stopped,
          cosine: result.cosine,
          startCosine: result.steps[0].cosine,
          steps: [...result.steps],
          added: {
            nodes: result.config.nodesToExclude.filter((n) => !config.nodesToExclude.includes(n)),
            subgraphs: result.config.subgraphsToExclude.slice(config.subgraphsToExclude.length),
          },
          used: data.feeds.length,
          skipped: data.skipped,
          seconds: (performance.now() - start) / 1000,
        };
      });
    },

    /**
     * Histograms of the float values of `tensors` over the first few samples (one run of the float
     * model with just those tensors exposed, workers/evaluation/activationHistograms.ts). Named
     * errors: NoEvaluationDataError, NoUsableSamplesError, EvaluationCancelledError.
     */
    async tensorHistograms(handle: string, request: TensorHistogramRequest): Promise<TensorHistograms> {
      const h = held.get(handle);
      return withToken(h, async (check) => {
        const start = performance.now();
        const samples = request.samples.slice(0, Math.max(1, request.maxSamples ?? 4));
        const data = await decodeSamples(h, samples, request.spec, check, () => undefined);
        const runtime = comparisonRuntime(h.runtime, data.feeds, check);
        const found = await activationHistograms(h.model, rangesFromTable(request.tensors), runtime);
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
      const h = held.get(handle);
      const progress = throttled(onProgress);
      return withToken(h, async (check) => {
        const { quant } = await openQuantized(h, request.quantized);
        const data = await decodeSamples(
          h,
          request.samples.slice(0, Math.max(1, request.maxSamples ?? PARITY_SAMPLES)),
          request.spec,
          check,
          progress,
        );
        if (!deps.parityRuntimes) throw new ComparisonError('This build has no parity runtimes.');
        const { available, unavailable } = await deps.parityRuntimes(h.threads);
        check();
        const result = await runParity(h.model, quant, available, data.feeds, {
          check,
          onProgress: (done, total) => progress({ phase: 'parity', done, total }),
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

  function buildComparisonReport(
    h: HeldEvaluation,
    quantFile: ReportFile,
    quant: ModelProto,
    comparison: Comparison,
    ctx: ReportContext,
    timings: readonly ReportTiming[],
    atDefault: ReportInput['atDefault'],
    npu?: NpuFigure,
    histograms?: ReadonlyMap<string, ReportHistogram>,
    task?: ReportTask | null,
  ): Report {
    const lw = comparison.layerwise;
    return buildReport({
      task: task ?? null,
      createdAt: new Date().toISOString(),
      floatModel: h.file,
      quantizedModel: quantFile,
      config: ctx.config ?? null,
      exclusions: ctx.exclusions ?? [],
      quantization: ctx.quantization ?? null,
      precisions: ctx.precisions ?? null,
      samples: comparison.samples,
      dataSource: ctx.dataSource ?? null,
      outputs: comparison.outputs,
      atDefault,
      npu: npu ? npuReportInput(npu) : null,
      layers: lw ? { rows: lw.rows, index: h.index, pairs: lw.pairs, missing: lw.missing } : undefined,
      grids: lw ? qdqGrids(quant) : undefined,
      ranges: ctx.ranges ? rangesFromTable(ctx.ranges) : undefined,
      histograms,
      notes: histograms?.size
        ? [
            "Histograms in the range table are of the float model's activations on the evaluation samples, drawn over the tensor's range (widened to the values seen where they fall outside it).",
          ]
        : [],
      timings: [
        ...(ctx.timings ?? []),
        ...timings,
        { label: 'float model runs', seconds: comparison.seconds.float },
        { label: 'quantized model runs', seconds: comparison.seconds.quantized },
        { label: 'comparison in all', seconds: comparison.seconds.total },
      ],
    });
  }
}

export type EvaluationApi = ReturnType<typeof createEvaluationApi>;
