/**
 * The recovery worker's API: accuracy recovery in the browser. Given the float model (its bytes stay
 * here), the calibration samples and the preprocessing, it (a) quantizes with the user's recovery steps
 * (core quantizeWithRecovery: CLE, AdaRound / AdaQuant, bias correction) and (b) climbs the reference's
 * best-practice ladder (core climbLadder + ladderMeasures) toward a target on the evaluation samples.
 *
 * Every quantized model made here stays here, keyed by a handle (docs/ARCHITECTURE.md, principle 8): the page shows
 * the numbers and asks for one model's bytes only when the user picks it ("Use this model"). Samples are
 * decoded once per run (the evaluation worker's loadFeeds) and serve calibration, fine-tuning and judging
 * alike; onnxruntime-web runs the models (WASM) and the optimizers' matrix products (the Gram product of each
 * step and the float64 products that build each layer's problem); the rest of the optimizers is TypeScript, see
 * bench/README.md. Progress goes to one callback (a Comlink.proxy on the page); `cancel` stops the run
 * within one inference or one optimizer step. A cancelled ladder keeps the rungs it measured.
 *
 * Plain object like evaluationApi: tests build it with a Node runtime and a fake decoder, and
 * recovery.worker.ts only wires the browser's runtime and image decoder to it.
 */
import { encode, openModel, type GraphIndex, type ModelProto, type TensorSummary } from '../../src/core/onnx/index.ts';
import { compareModels, ComparisonError, type ComparisonRuntime } from '../../src/core/evaluate/compareModels.ts';
import type { OutputSummary } from '../../src/core/metrics/metricSummary.ts';
import { rangesOf, type TensorStates } from '../../src/core/calibrate/run/statistics.ts';
import { configToJSON, configToPlainJson, validateConfig, type QuantConfig } from '../../src/core/quantize/config.ts';
import type { PresetName } from '../../src/core/quantize/presets.ts';
import type { Ranges } from '../../src/core/quantize/plan.ts';
import type { QuantizeReport } from '../../src/core/quantize/quantizeReport.ts';
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import { buildReport, type Report, type ReportFile } from '../../src/core/report/index.ts';
import { quantizeWithRecovery, type RecoveryProgress } from '../../src/core/recovery/quantizeWithRecovery.ts';
import {
  climbLadder,
  ladderReport,
  ladderSoFar,
  LadderTargetError,
  parseLadderTarget,
  TASK_LADDER_METRICS,
  type LadderResult,
  type LadderStop,
  type Rung,
  type RungResult,
  type SkippedRung,
} from '../../src/core/recovery/ladder.ts';
import { ladderMetrics, type LadderSearchProgress, type RungDetail } from '../../src/core/recovery/ladderMeasure.ts';
import { ladderClimbOptions } from '../../src/core/recovery/ladderSetup.ts';
import { ModelCalibrator, type SampleSource } from '../../src/core/calibrate/run/runner.ts';
import type { ImageDecoder } from '../../src/core/calibrate/run/samples.ts';
import { comparisonRuntime } from '../evaluation/comparisonRuntime.ts';
import type { GraphOptimization } from '../../src/core/runtime/graphOptimization.ts';
import { WASM_INT8_KERNELS_EXACT } from '../../src/core/runtime/wasmInt8Kernels.ts';
import { loadFeeds, type EvaluationFeeds } from '../evaluation/feeds.ts';
import { taskTargetReading } from '../evaluation/taskRuns.ts';
import { figureReader } from '../../src/core/recovery/targetMeasure.ts';
import type { TaskHead } from '../../src/core/task/index.ts';
import type { BackendPreference } from '../../src/core/runtime/session.ts';
import type { Feed, Runtime } from '../../src/core/runtime/session.ts';
import { HandleTable } from '../runtime/handles.ts';
import { recordBackend, type RecordedRuntime } from '../runtime/recordBackend.ts';
import { readExternalFiles } from '../runtime/externalFiles.ts';
import { NoRecoveryDataError, RecoveryCancelledError } from '../../src/core/recovery/errors.ts';
import { runtimeGramProduct } from './gramProduct.ts';
import { checkedDenseProduct } from './denseProduct.ts';
import type { RuntimeDenseProduct } from '../../src/core/recovery/denseProduct.ts';
import { sha256Hex } from '../../src/core/report/sha256.ts';
import { chooseMixedPrecision, type MixedPrecisionResult } from '../../src/core/search/mixedPrecision.ts';
import { nodePrecisions } from '../../src/core/quantize/precisionClasses.ts';

import { mixedSummary, recipeLabel, recoveryFacts } from './rungSummary.ts';
import type {
  LadderOutcome,
  LadderRequest,
  PickedModel,
  RecoveryData,
  RecoveryModel,
  RecoveryOpenOptions,
  RecoveryOutcome,
  RecoveryRequest,
  RecoveryWorkerProgress,
  RecoveryWorkerProgressCallback,
  RungSummary,
} from './recoveryTypes.ts';
/**
 * Why fine-tuning runs on WASM whatever the runtime switch says: it quantizes and runs the quantized model at every
 * step, and quantized models run on the CPU (WebGPU has no QuantizeLinear kernel and computed int8
 * DequantizeLinear wrongly, docs/NOTES.md); its quantized sessions add that reason themselves.
 */
const ON_WASM = 'fine-tuning quantizes and runs the quantized model at every step';

export { NoRecoveryDataError, RecoveryCancelledError } from '../../src/core/recovery/errors.ts';
export type * from './recoveryTypes.ts';
export { recipeLabel } from './rungSummary.ts';

export interface RecoveryApiDeps {
  /** The worker's runtime; `forcedBecause` says why WASM runs where `preference` forces it. */
  runtime(preference: BackendPreference, threads?: number, forcedBecause?: string): Runtime;
  decodeImage: ImageDecoder;
}

interface HeldModel {
  model: ModelProto;
  index: GraphIndex;
  inputs: TensorSummary[];
  file: ReportFile;
  runtime: RecordedRuntime;
  /** The float64 MatMul for layer problems on `runtime`, checked once on the first recovery (undefined: TypeScript). */
  dense?: Promise<RuntimeDenseProduct | undefined>;
  active: Set<{ aborted: boolean }>;
  /** Rungs and climbs of the last run: a new run replaces them (the page lists only the last run's). */
  kept: { rungs: string[]; ladders: string[] };
}

interface HeldRung {
  model: ModelProto;
  report: QuantizeReport;
  config: QuantConfig;
  label: string;
  preset: PresetName | null;
  seconds: number;
  outputs: readonly OutputSummary[];
  samples: number;
}

interface HeldLadder {
  model: string;
  result: LadderResult;
  handles: (string | null)[];
  dataSource: string;
  /** Rungs were judged as the NPU runs them (float parts in BF16). */
  npuBf16: boolean;
  /** The onnxruntime level the rungs were judged at. */
  aim: GraphOptimization;
}

/** The task figures a ladder's target reads on `data` (taskTargetReading with the request's head). */
const ladderTask = (
  request: { task?: TaskHead | null; spec: PreprocessSpec | null },
  data: EvaluationFeeds,
  metric: string,
) => taskTargetReading(request.task, request.spec, data, metric);

/** Decoded feeds as a calibration sample source (no second decode). */
function feedSource(data: EvaluationFeeds): SampleSource {
  return {
    count: data.feeds.length,
    name: (i) => data.names[i],
    produce: async (i) => ({ feeds: data.feeds[i] as Record<string, Feed> }),
  };
}

export function createRecoveryApi(deps: RecoveryApiDeps) {
  const models = new HandleTable<HeldModel>('recover-model');
  const rungs = new HandleTable<HeldRung>('rung');
  const ladders = new HandleTable<HeldLadder>('ladder');

  /** Runs `body` with a fresh cancel signal of `h`; RecoveryCancelledError once cancelled, whatever the body threw. */
  async function withSignal<T>(
    h: HeldModel,
    body: (signal: { aborted: boolean }, check: () => void) => Promise<T>,
  ): Promise<T> {
    const signal = { aborted: false };
    h.active.add(signal);
    const check = () => {
      if (signal.aborted) throw new RecoveryCancelledError('The recovery was cancelled.');
    };
    try {
      return await body(signal, check);
    } catch (e) {
      check();
      throw e;
    } finally {
      h.active.delete(signal);
    }
  }

  /** Decodes calibration and evaluation samples once; the calibrate callback runs the float model on them. */
  async function prepareData(
    h: HeldModel,
    request: RecoveryData,
    check: () => void,
    progress: RecoveryWorkerProgressCallback,
  ) {
    if (request.samples.length === 0) {
      throw new NoRecoveryDataError(
        'No calibration images: recovery calibrates, fine-tunes and measures on real data. Add images in the calibration step.',
      );
    }
    const hooks = (what: string) => ({
      cancelled: () => (check(), false),
      onSample: (done: number, total: number) => progress({ rung: null, phase: 'decoding', done, total }),
      cancelledError: () => new RecoveryCancelledError(`cancelled while decoding the ${what}`),
    });
    const tuning = await loadFeeds(
      request.samples,
      h.inputs,
      request.spec,
      deps.decodeImage,
      hooks('calibration samples'),
    );
    const own = request.evaluationSamples && request.evaluationSamples.length > 0;
    const judging = own
      ? await loadFeeds(
          request.evaluationSamples!,
          h.inputs,
          request.spec,
          deps.decodeImage,
          hooks('evaluation samples'),
        )
      : tuning;
    const calibrate = async (model: ModelProto, config: QuantConfig): Promise<Ranges> => {
      const calibrator = new ModelCalibrator(model, h.runtime);
      try {
        const outcome = await calibrator.calibrate(
          feedSource(tuning),
          config,
          () => (check(), false),
          () => undefined,
        );
        return rangesOf(outcome.states as TensorStates);
      } finally {
        await calibrator.release();
      }
    };
    return {
      tuning,
      judging,
      calibrate,
      tuningRuntime: comparisonRuntime(h.runtime, tuning.feeds, check) as ComparisonRuntime,
      judgingRuntime: comparisonRuntime(h.runtime, judging.feeds, check, request.aim ?? 'all') as ComparisonRuntime,
      aim: request.aim ?? 'all',
      skipped: [...tuning.skipped, ...(own ? judging.skipped : [])],
      dataSource: own
        ? `${judging.feeds.length} evaluation sample(s)`
        : `${judging.feeds.length} calibration sample(s)`,
    };
  }

  /** The model's float64 MatMul (workers/recovery/denseProduct.ts), checked on first use and kept for its runs. */
  function denseOf(h: HeldModel): Promise<RuntimeDenseProduct | undefined> {
    h.dense ??= checkedDenseProduct(h.runtime);
    return h.dense;
  }

  /** Forgets the models of the previous run of `h` (a picked one's bytes are already the page's). */
  function forgetPrevious(h: HeldModel): void {
    for (const id of h.kept.rungs) rungs.delete(id);
    for (const id of h.kept.ladders) ladders.delete(id);
    h.kept = { rungs: [], ladders: [] };
  }

  /** Keeps a measured model and describes it. */
  function summarize(
    h: HeldModel,
    detail: RungDetail | undefined,
    base: Omit<
      RungSummary,
      'handle' | 'finetune' | 'cle' | 'biasCorrection' | 'skippedLayers' | 'quantization' | 'timing' | 'mixedPrecision'
    >,
  ): RungSummary {
    if (!detail)
      return {
        ...base,
        handle: null,
        finetune: null,
        cle: null,
        biasCorrection: null,
        skippedLayers: 0,
        quantization: null,
        timing: null,
        mixedPrecision: null,
      };
    const config = validateConfig(JSON.parse(base.config));
    const handle = rungs.add({
      model: detail.quantized,
      report: detail.report,
      config,
      label: base.label,
      preset: base.preset,
      seconds: base.seconds,
      outputs: detail.comparison.outputs,
      samples: detail.comparison.samples,
    });
    h.kept.rungs.push(handle);
    return {
      ...base,
      handle,
      ...recoveryFacts(detail.recovery),
      quantization: { ...detail.report.counts },
      mixedPrecision: mixedSummary(detail.mixedPrecision),
    };
  }

  const forward =
    (progress: RecoveryWorkerProgressCallback, rung: RecoveryWorkerProgress['rung'], ladder?: string) =>
    (p: RecoveryProgress | { phase: 'evaluate' } | LadderSearchProgress) => {
      if (p.phase === 'mixed')
        progress({ rung, ladder, phase: 'mixed', done: p.done, total: p.total, cosine: p.cosine });
      else if (p.phase === 'layer')
        progress({
          rung,
          ladder,
          phase: 'layer',
          layer: {
            id: p.id,
            done: p.done,
            total: p.total,
            lossBefore: p.lossBefore,
            lossAfter: p.lossAfter,
            curve: p.curve,
          },
        });
      else if (p.phase === 'gather') progress({ rung, ladder, phase: 'gather', done: p.stage, total: p.stages });
      else progress({ rung, ladder, phase: p.phase });
    };

  return {
    /** Decodes the float model; its bytes stay here. ComparisonError for a model that is already quantized. */
    async open(bytes: ArrayBuffer, options: RecoveryOpenOptions): Promise<RecoveryModel> {
      const data = new Uint8Array(bytes);
      const external = await readExternalFiles(options.externalFiles);
      const { model, index, summary } = openModel(data, { fileName: options.fileName, externalData: external });
      if (summary.quantization.state !== 'float')
        throw new ComparisonError(`"${options.fileName}" is already quantized: recovery starts from the float model.`);
      const file: ReportFile = { name: options.fileName, sha256: await sha256Hex(data), bytes: data.byteLength };
      const handle = models.add({
        model,
        index,
        inputs: summary.inputs,
        file,
        runtime: recordBackend(deps.runtime('wasm', options.threads, ON_WASM), ON_WASM),
        active: new Set(),
        kept: { rungs: [], ladders: [] },
      });
      return { handle, inputs: summary.inputs, file };
    },

    /**
     * Quantizes with the configuration's recovery steps and judges the result on the evaluation samples.
     * Named errors: NoRecoveryDataError, NoUsableSamplesError, RecoveryCancelledError, RecoveryError,
     * ConfigError and what the quantizer throws.
     */
    async recover(
      handle: string,
      request: RecoveryRequest,
      onProgress?: RecoveryWorkerProgressCallback,
    ): Promise<RecoveryOutcome> {
      const h = models.get(handle);
      const progress = onProgress ?? (() => undefined);
      return withSignal(h, async (signal, check) => {
        const start = performance.now();
        let config = validateConfig(request.config);
        const data = await prepareData(h, request, check, progress);
        let mixed: MixedPrecisionResult | undefined;
        if (request.mixedPrecision) {
          const { budget, target, maxMeasurements = 100, metric = 'cosine' } = request.mixedPrecision;
          // A task target (agreement with the float model's boxes or masks) is read on the calibration images, through
          // the same reading as the ladder's and qstudio quantize --mixed-precision's (core targetMeasure).
          const goal = parseLadderTarget(`${metric}:${target}`);
          if (goal.metric !== 'cosine' && !(TASK_LADDER_METRICS as readonly string[]).includes(goal.metric))
            throw new LadderTargetError(
              `mixed precision aims at an output cosine or a task figure (map50, map, miou), not ${goal.metric}`,
            );
          const reader =
            goal.metric === 'cosine' ? null : figureReader(goal.metric, ladderTask(request, data.tuning, goal.metric));
          progress({ rung: null, phase: 'calibrate' });
          const plain: QuantConfig = {
            ...config,
            includeCle: false,
            includeSq: false,
            includeFastFt: false,
            includeBiasCorrection: false,
          };
          mixed = await chooseMixedPrecision(
            h.model,
            await data.calibrate(h.model, plain),
            config,
            data.tuningRuntime,
            {
              budget,
              target: goal.value,
              ...(reader ? { figure: (runs) => reader.figure([], runs), metric: goal.metric } : {}),
              maxMeasurements,
              signal,
              onStep: (s) =>
                progress({ rung: null, phase: 'mixed', done: s.index, total: maxMeasurements, cosine: s.cosine }),
            },
          );
          check();
          config = mixed.config;
        }
        const result = await quantizeWithRecovery(h.model, config, {
          calibrate: (m) => data.calibrate(m, config),
          runtime: data.tuningRuntime,
          // The optimizers' inner product and the layer problems' products as onnxruntime MatMuls (many times faster
          // than TypeScript, bench/README.md).
          gramProduct: runtimeGramProduct(h.runtime),
          denseProduct: config.includeFastFt ? (await denseOf(h))?.product : undefined,
          signal,
          onProgress: forward(progress, null),
          configName: request.configName,
        });
        progress({ rung: null, phase: 'evaluate' });
        const comparison = await compareModels(h.model, result.model, data.judgingRuntime, {
          layers: false,
          floatIndex: h.index,
        });
        const metrics = ladderMetrics(comparison.outputs);
        const seconds = (performance.now() - start) / 1000;
        forgetPrevious(h);
        const rung = summarize(
          h,
          {
            quantized: result.model,
            report: result.report,
            recovery: result.recovery,
            comparison,
            mixedPrecision: mixed,
          },
          {
            index: 1,
            label: recipeLabel(config, request.configName, mixed !== undefined),
            step: null,
            score: metrics.cosine,
            metrics,
            met: false,
            seconds,
            error: null,
            config: configToJSON(config),
            preset: request.configName as PresetName,
          },
        );
        return { rung, used: data.tuning.feeds.length, skipped: data.skipped, seconds, ranOn: h.runtime.ranOn() };
      });
    },

    /**
     * Climbs the ladder until a rung meets the target (core climbLadder with ladderClimbOptions, as qstudio ladder).
     * Progress says the rung, its phase and layer, and each rung's numbers as it ends. A cancel ends the
     * climb with what was measured (stopped: 'cancelled'); a bad target is LadderTargetError.
     */
    async ladder(
      handle: string,
      request: LadderRequest,
      onProgress?: RecoveryWorkerProgressCallback,
    ): Promise<LadderOutcome> {
      const h = models.get(handle);
      const progress = onProgress ?? (() => undefined);
      const target = parseLadderTarget(request.target);
      const signal = { aborted: false };
      h.active.add(signal);
      const check = () => {
        if (signal.aborted) throw new RecoveryCancelledError('The ladder was cancelled.');
      };
      try {
        const start = performance.now();
        const base = validateConfig(request.config);
        const data = await prepareData(h, request, check, progress);
        const info = (r: Rung): RecoveryWorkerProgress['rung'] => ({
          index: r.index,
          label: r.label,
          step: r.step,
          of: r.of,
          estimate: r.estimate ? { ...r.estimate } : undefined,
          why: r.why,
        });
        forgetPrevious(h);
        // The climb is held from its start, its result the rungs measured so far: after a Cancel (or while it runs) its
        // report and every finished rung's model are there, whatever becomes of the rung in flight.
        const measuredSoFar: RungResult[] = [];
        const skippedSoFar: SkippedRung[] = [];
        const order = request.order ?? 'eight-bit-first';
        const held: HeldLadder = {
          model: handle,
          result: ladderSoFar(target, order, [], [], 'cancelled'),
          handles: [],
          dataSource: data.dataSource,
          npuBf16: request.npuBf16 ?? false,
          aim: data.aim,
        };
        const ladderHandle = ladders.add(held);
        h.kept.ladders.push(ladderHandle);
        const update = () => {
          held.result = ladderSoFar(target, order, measuredSoFar, skippedSoFar, 'cancelled');
        };
        const climb = ladderClimbOptions(
          {
            model: h.model,
            calibrate: data.calibrate,
            tuning: data.tuningRuntime,
            evaluation: data.judgingRuntime,
            // The calibration samples as the judge runs models (one onnxruntime-web level here), as qstudio ladder gives it.
            sensitivity: data.tuningRuntime,
            signal,
            gramProduct: runtimeGramProduct(h.runtime),
            denseProduct: (await denseOf(h))?.product,
            floatPartsAsBf16: request.npuBf16 ?? false,
            onProgress: (rung, p) => forward(progress, info(rung), ladderHandle)(p),
            task: ladderTask(request, data.judging, target.metric),
            // The mixed-precision rung aims at a task target on the calibration images' own task reading.
            heldInTask: ladderTask(request, data.tuning, target.metric),
          },
          {
            target,
            base,
            order: request.order,
            formats: request.formats,
            perChannelRung: request.perChannelRung,
            exclusions: request.exclusions,
            mixedPrecision: request.mixedPrecision,
            maxExclusionSteps: request.maxExclusionSteps,
            finetuneReach: request.finetuneReach,
            timeBudget: request.timeBudget,
          },
          // The judge is onnxruntime-web, whose WASM int8 kernels do not saturate (measured, core/runtime/wasmInt8Kernels.ts):
          // a model at risk lists its saturation-safe rung as skipped, with the reason.
          {
            calibrationSamples: data.tuning.feeds.length,
            evaluationSamples: data.judging.feeds.length,
            kernelsSaturate: false,
            kernelsExactBecause: WASM_INT8_KERNELS_EXACT,
          },
        );
        const summaries: RungSummary[] = [];
        // The budget's deadline stops the rung in flight (the climb then ends 'budget').
        const deadline =
          request.timeBudget === undefined
            ? undefined
            : setTimeout(() => (signal.aborted = true), request.timeBudget * 1000);
        const result = await climbLadder({
          ...climb,
          signal,
          onSkip: (k) => {
            skippedSoFar.push(k);
            update();
          },
          onRung: (rung, r?: RungResult) => {
            if (!r) return progress({ rung: info(rung), ladder: ladderHandle, phase: 'prepare' });
            const s = summarize(h, r.detail as RungDetail | undefined, {
              index: rung.index,
              label: rung.label,
              step: rung.step,
              score: r.score,
              metrics: { ...r.metrics },
              met: r.met,
              seconds: r.seconds,
              error:
                signal.aborted && r.error
                  ? 'RecoveryCancelledError: cancelled while this rung was measured'
                  : (r.error ?? null),
              config: configToJSON(r.config),
              preset: rung.recipe.preset,
            });
            summaries.push(s);
            measuredSoFar.push(r);
            held.handles.push(s.handle);
            update();
            progress({ rung: info(rung), ladder: ladderHandle, phase: 'rung-done', finished: s });
          },
        });
        if (deadline !== undefined) clearTimeout(deadline);
        const stopped: LadderStop = signal.aborted && result.stopped !== 'budget' ? 'cancelled' : result.stopped;
        held.result = { ...result, stopped };
        return {
          handle: ladderHandle,
          target,
          rungs: summaries,
          stopped,
          chosen: result.chosen,
          order: result.order,
          skippedRungs: [...result.skipped],
          shortfall: ladderReport(result).shortfall,
          used: data.tuning.feeds.length,
          evaluated: data.judging.feeds.length,
          skipped: data.skipped,
          seconds: (performance.now() - start) / 1000,
          ranOn: h.runtime.ranOn(),
        };
      } catch (e) {
        check();
        throw e;
      } finally {
        h.active.delete(signal);
      }
    },

    /** The bytes of a measured model (the page makes it the run's result), with its report and configuration. */
    pick(rungHandle: string): PickedModel {
      const r = rungs.get(rungHandle);
      const bytes = encode(r.model);
      const copy = new Uint8Array(bytes).buffer as ArrayBuffer;
      return {
        bytes: copy,
        report: r.report,
        config: configToJSON(r.config),
        label: r.label,
        preset: r.preset,
        seconds: r.seconds,
      };
    },

    /**
     * The report of a climb (core buildReport, with its ladder section), for the rung the user picked
     * (default: the chosen one): that rung's model, configuration and output metrics.
     */
    async ladderReport(ladderHandle: string, picked?: number): Promise<Report> {
      const l = ladders.get(ladderHandle);
      const h = models.get(l.model);
      const index = picked ?? l.result.chosen;
      const rungHandle = l.handles[index];
      const rung = rungHandle ? rungs.get(rungHandle) : null;
      const result = { ...l.result, chosen: index };
      const bytes = rung ? encode(rung.model) : null;
      return buildReport({
        title: `Accuracy-recovery ladder: ${h.file.name}`,
        createdAt: new Date().toISOString(),
        floatModel: h.file,
        quantizedModel:
          bytes && rung
            ? {
                name: `${h.file.name.replace(/\.onnx$/i, '')}.quant.onnx`,
                bytes: bytes.length,
                sha256: await sha256Hex(bytes),
              }
            : null,
        config: rung ? { name: rung.label, settings: configToPlainJson(rung.config) } : null,
        exclusions: rung ? rung.report.exclusions.map((x) => ({ rule: x.rule, ids: [...x.ids] })) : [],
        quantization: rung
          ? {
              nodes: rung.report.counts.nodes,
              quantized: rung.report.counts.quantized,
              float: rung.report.counts.float,
            }
          : null,
        precisions: rung ? nodePrecisions(rung.report) : null,
        samples: rung?.samples ?? 0,
        dataSource: l.dataSource,
        graphOptimization: l.aim,
        outputs: rung?.outputs ?? [],
        ladder: ladderReport(result),
        timings: l.result.results.map((r) => ({ label: `rung ${r.rung.index}: ${r.rung.label}`, seconds: r.seconds })),
        notes: l.npuBf16
          ? [
              'Every rung was judged as the NPU runs it: its float parts (exclusions, ops left float) in BF16, as the Ryzen AI compiler runs them; the written models keep them in float32.',
            ]
          : [],
      });
    },

    /** Forgets measured models the page no longer lists (a new run replaces the old ones). */
    forget(rungHandles: readonly string[], ladderHandle?: string): void {
      for (const id of rungHandles) rungs.delete(id);
      if (ladderHandle) ladders.delete(ladderHandle);
    },

    /** Asks the running recovery or climb of `handle` to stop within one inference or optimizer step. */
    cancel(handle: string): void {
      if (models.has(handle)) for (const s of models.get(handle).active) s.aborted = true;
    },

    close(handle: string): void {
      const h = models.has(handle) ? models.get(handle) : undefined;
      void h?.dense?.then((d) => d?.release());
      models.delete(handle);
    },
  };
}

export type RecoveryApi = ReturnType<typeof createRecoveryApi>;
