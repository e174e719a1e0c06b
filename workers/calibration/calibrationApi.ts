/**
 * The calibration worker's API: open a float model (its bytes are transferred in and stay here), run
 * calibration samples through it with every intermediate tensor exposed, and hand back the ranges the
 * quantizer takes (and, on request, the mergeable collector states, for runs split over workers).
 *
 * A calibration worker is disposable: onnxruntime frees a session's WASM memory only when its worker
 * ends (docs/NOTES.md), so the page terminates it when the model changes. Progress goes to a callback
 * (a Comlink.proxy on the page), at most about ten times a second; `cancel` sets a flag read between
 * samples. Like modelApi this object is plain: tests call it with a Node runtime and a fake decoder,
 * and calibration.worker.ts only wires the browser's runtime and image decoder to it.
 */
import {
  buildGraphIndex,
  summarize,
  openModel,
  type ModelProto,
  type TensorSummary,
} from '../../src/core/onnx/index.ts';
import { rangesOf, mergeTensorStates, type TensorStates } from '../../src/core/calibrate/run/statistics.ts';
import { activationMethodName } from '../../src/core/calibrate/collectors/methodFromConfig.ts';
import { validateConfig, type CalibrationMethod, type QuantConfig } from '../../src/core/quantize/config.ts';
import {
  calibrateByHeldInChoice,
  heldInSplit,
  type MethodChoice,
} from '../../src/core/evaluate/calibrationMethodChoice.ts';
import { comparisonRuntime } from '../evaluation/comparisonRuntime.ts';
import type { PreprocessSpec } from '../../src/core/preprocess/spec.ts';
import { validatePreprocess } from '../../src/core/preprocess/spec.ts';
import { asFloat32 } from '../../src/core/halfFloat/float16.ts';
import {
  assertCalibratable,
  ModelCalibrator,
  type Progress,
  type SampleSource,
  type SkippedSample,
} from '../../src/core/calibrate/run/runner.ts';
import {
  CalibrationCancelledError,
  NoCalibrationDataError,
  NoUsableSamplesError,
} from '../../src/core/calibrate/errors.ts';
import {
  randomSource,
  sampleSource,
  type CalibrationSample,
  type ImageDecoder,
  RANDOM_SAMPLES,
} from '../../src/core/calibrate/run/samples.ts';
import type { BackendPreference } from '../../src/core/runtime/session.ts';
import type { BackendInfo, Feed, Runtime } from '../../src/core/runtime/session.ts';
import { HandleTable } from '../runtime/handles.ts';
import { readExternalFiles } from '../runtime/externalFiles.ts';
import { throttledProgress } from '../runtime/throttledProgress.ts';
import { rangeEntry, rangesFromTable, type RangeTable } from '../../src/core/calibrate/run/rangeTable.ts';

export type { CalibrationSample } from '../../src/core/calibrate/run/samples.ts';
export type { Progress as CalibrationProgress, SkippedSample } from '../../src/core/calibrate/run/runner.ts';

export interface CalibrationOpenOptions {
  fileName: string;
  /** The model's external-data files (the user's Files), by the name its tensors use; read here. */
  externalFiles?: Readonly<Record<string, Blob>>;
  /** 'wasm' keeps calibration off WebGPU (tests, or a GPU that misbehaves). */
  backend?: BackendPreference;
  /** Most WASM threads this worker's sessions use (the page shares the cores among its workers). */
  threads?: number;
}

export interface CalibrationModel {
  handle: string;
  inputs: TensorSummary[];
  /** Tensors calibration observes (graph inputs and every node output). */
  observable: number;
}

export interface CalibrationRequest {
  samples: readonly CalibrationSample[];
  /** How images become tensors; needed for images and for random image inputs. */
  spec: PreprocessSpec | null;
  /** Chooses the collector (MinMax, histogram methods, …) and `UseRandomData`. */
  config: QuantConfig;
  /** Return the collector states as well (to merge runs of several workers). */
  returnStates?: boolean;
  /**
   * One share of a run split over workers: no usable sample here is not an error (the others may have some), and the
   * result carries no ranges of its own (the caller merges the states and ranges those).
   */
  partial?: boolean;
  /** Random samples to run under UseRandomData when no samples are given. */
  randomSamples?: number;
  /**
   * One round of a sequential calibration split over workers (core SequentialRound): 0 the float pass, g ≥ 1
   * depth group g gathered on the model quantized with `ranges`, the ranges of every worker's statistics merged
   * after round g − 1. The result's states are then that round's only.
   */
  round?: { index: number; ranges: RangeTable | null };
  /** The runtime switch, read by the page's pool when it makes its workers (a worker's runtime is fixed at `open`). */
  backend?: BackendPreference;
  /**
   * Choose the calibration method on these samples (core/evaluate/calibrationMethodChoice.ts): `config` (its own
   * method) and the configuration of each other candidate method, as the page's settings make them, judged at
   * onnxruntime-web's default options; the ranges are the chosen one's. One worker runs it.
   */
  methodCandidates?: Partial<Record<CalibrationMethod, QuantConfig>>;
}

export interface CalibrationResult {
  /** tensor → [min, max], what the quantizer (and `qstudio quantize --ranges`) takes. */
  ranges: RangeTable;
  states?: TensorStates;
  /** Samples folded, and those left out with why. */
  used: number;
  skipped: SkippedSample[];
  /** Things the user should know about these ranges (random data, …). */
  warnings: string[];
  /** Collector method the ranges come from (MinMax, PowerOfTwoMinMSE, …). */
  method: string;
  backend: BackendInfo;
  /** Passes over the samples (more than one when the exposed tensors did not fit one run). */
  passes: number;
  seconds: number;
  runOutputBytes: number;
  /** Workers that shared the run (set by the page when it splits a run; absent means one). */
  workers?: number;
  /** Rounds of a sequential calibration (SequentialRound); absent for other methods. */
  rounds?: number;
  /** The held-in choice (request.methodCandidates): each method's figure and the one chosen, whose ranges these are. */
  methodChoice?: MethodChoice;
}

export type ProgressCallback = (progress: Progress) => void;

export interface CalibrationApiDeps {
  runtime(preference: BackendPreference, threads?: number): Runtime;
  decodeImage: ImageDecoder;
}

interface HeldCalibration {
  model: ModelProto;
  /** The runtime the calibrator runs on; the held-in choice judges on it too. */
  runtime: Runtime;
  inputs: TensorSummary[];
  calibrator: ModelCalibrator;
  /** Cancellation flags of the runs started and not finished (a cancel stops them all). */
  active: Set<{ cancelled: boolean }>;
  /** Settles when the last run started has finished: runs on one session go one at a time. */
  idle: Promise<void>;
}

/** A record of the ranges, in a stable (graph) order. */
function rangeTable(states: TensorStates, order: readonly string[]): RangeTable {
  const ranges = rangesOf(states);
  const out: Record<string, RangeTable[string]> = {};
  for (const name of order) {
    const r = ranges.get(name);
    if (r) out[name] = rangeEntry(r);
  }
  return out;
}

export function createCalibrationApi(deps: CalibrationApiDeps) {
  const held = new HandleTable<HeldCalibration>('calibration');

  async function runOnce(
    h: HeldCalibration,
    request: CalibrationRequest,
    cancelled: () => boolean,
    onProgress?: ProgressCallback,
  ): Promise<CalibrationResult> {
    const config = validateConfig(request.config);
    const spec = request.spec ? validatePreprocess(request.spec) : null;
    const warnings: string[] = [];
    let source;
    if (request.samples.length > 0) source = sampleSource(request.samples, h.inputs, spec, deps.decodeImage);
    else if (config.extraOptions.UseRandomData) {
      const n = request.randomSamples ?? RANDOM_SAMPLES;
      source = randomSource(h.inputs, spec, n);
      warnings.push(
        `Calibrated on ${n} random inputs (UseRandomData), not on real data: the ranges only reflect what the preprocessing can produce, and accuracy may suffer.`,
      );
    } else {
      throw new NoCalibrationDataError(
        'No calibration data: add images (or .npy tensors), or turn on random data (UseRandomData).',
      );
    }
    if (request.methodCandidates)
      return chooseAndCalibrate(h, request, config, source, cancelled, onProgress, warnings);
    const round = request.round
      ? { index: request.round.index, ranges: request.round.ranges ? rangesFromTable(request.round.ranges) : null }
      : undefined;
    const outcome = await h.calibrator.calibrate(source, config, cancelled, throttledProgress(onProgress), round);
    if (outcome.used === 0 && !request.partial) {
      throw new NoUsableSamplesError(
        `None of the ${source.count} samples could be used: ${outcome.skipped
          .slice(0, 3)
          .map((s) => `${s.file} (${s.reason})`)
          .join('; ')}${outcome.skipped.length > 3 ? '; …' : ''}.`,
      );
    }
    return {
      // A share's ranges would be thrown away (the pool ranges the merged states): no threshold search for them.
      ranges: outcome.used > 0 && !request.partial ? rangeTable(outcome.states, h.calibrator.observable) : {},
      states: request.returnStates ? outcome.states : undefined,
      used: outcome.used,
      skipped: outcome.skipped,
      warnings,
      method: activationMethodName(config),
      backend: outcome.backend,
      passes: outcome.passes,
      seconds: outcome.seconds,
      runOutputBytes: outcome.runOutputBytes,
      ...(outcome.rounds ? { rounds: outcome.rounds } : {}),
    };
  }

  /**
   * The held-in choice on the request's samples: the core's function, with this worker's calibrator gathering every
   * candidate's statistics in one pass and its runtime judging at onnxruntime-web's default options ('all').
   */
  async function chooseAndCalibrate(
    h: HeldCalibration,
    request: CalibrationRequest,
    config: QuantConfig,
    source: SampleSource,
    cancelled: () => boolean,
    onProgress: ProgressCallback | undefined,
    warnings: string[],
  ): Promise<CalibrationResult> {
    const start = performance.now();
    const progress = throttledProgress(onProgress);
    const skipped: SkippedSample[] = [];
    let used = 0;
    let last: Awaited<ReturnType<ModelCalibrator['calibrate']>> | null = null;
    const part = (indices: readonly number[]): SampleSource => ({
      count: indices.length,
      name: (i) => source.name(indices[i]),
      produce: (i) => source.produce(indices[i]),
    });
    const feedsOf = async (indices: readonly number[]) => {
      const out: Record<string, Feed>[] = [];
      for (const i of indices) {
        const made = await source.produce(i);
        if ('feeds' in made) out.push(made.feeds);
      }
      return out;
    };
    const check = () => {
      if (cancelled()) throw new CalibrationCancelledError('Calibration was cancelled: no ranges were computed.');
    };
    const judgeFeeds = await feedsOf(heldInSplit(source.count).judge);
    const held = await calibrateByHeldInChoice(h.model, {
      config,
      withMethod: (m) => {
        const c = request.methodCandidates?.[m];
        if (!c) throw new RangeError(`${m} is not a candidate here`);
        return validateConfig(c);
      },
      configName: 'held-in',
      samples: source.count,
      collect: async (indices, configs) => {
        const outcome = await h.calibrator.calibrate(
          part(indices),
          configs[0],
          cancelled,
          progress,
          undefined,
          configs.slice(1),
        );
        used += outcome.used;
        skipped.push(...outcome.skipped);
        last = outcome;
        return [outcome.states, ...(outcome.alsoStates ?? [])];
      },
      judge: () => comparisonRuntime(h.runtime, judgeFeeds, check, 'all'),
    });
    if (used === 0) throw new NoUsableSamplesError(`None of the ${source.count} samples could be used.`);
    const ranges: Record<string, RangeTable[string]> = {};
    for (const name of h.calibrator.observable) {
      const r = held.ranges.get(name);
      if (r) ranges[name] = rangeEntry(r);
    }
    const outcome = last!;
    return {
      ranges,
      used,
      skipped,
      warnings,
      method: activationMethodName(held.config),
      backend: outcome.backend,
      passes: outcome.passes,
      seconds: (performance.now() - start) / 1000,
      runOutputBytes: outcome.runOutputBytes,
      methodChoice: held.choice,
    };
  }

  return {
    /**
     * Decodes a model for calibration. Refuses models onnxruntime cannot run (custom-domain ops) and
     * models that are not float, with named errors, before any runtime is loaded.
     */
    async open(bytes: ArrayBuffer, options: CalibrationOpenOptions): Promise<CalibrationModel> {
      const external = await readExternalFiles(options.externalFiles);
      const opened = openModel(new Uint8Array(bytes), { fileName: options.fileName, externalData: external });
      // A float16 model calibrates as its float32 form: the same tensors, fed and observed in float32.
      const model = opened.summary.float16 ? asFloat32(opened.model) : opened.model;
      const summary = model === opened.model ? opened.summary : summarize(model, buildGraphIndex(model.graph!));
      assertCalibratable(summary, `"${options.fileName}"`);
      const runtime = deps.runtime(options.backend ?? 'auto', options.threads);
      const calibrator = new ModelCalibrator(model, runtime);
      const handle = held.add({
        model,
        runtime,
        inputs: summary.inputs,
        calibrator,
        active: new Set(),
        idle: Promise.resolve(),
      });
      return { handle, inputs: summary.inputs, observable: calibrator.observable.length };
    },

    /**
     * Runs the samples and returns the ranges. With no samples, `UseRandomData` runs random inputs
     * (and says so in `warnings`); otherwise NoCalibrationDataError. Corrupt images are skipped and
     * listed; NoUsableSamplesError when none was usable; CalibrationCancelledError after `cancel`.
     */
    async run(handle: string, request: CalibrationRequest, onProgress?: ProgressCallback): Promise<CalibrationResult> {
      const h = held.get(handle);
      const token = { cancelled: false };
      h.active.add(token);
      const previous = h.idle;
      let finished!: () => void;
      h.idle = new Promise((resolve) => (finished = resolve));
      try {
        await previous; // a cancelled run may still be inside its last sample
        return await runOnce(h, request, () => token.cancelled, onProgress);
      } finally {
        h.active.delete(token);
        finished();
      }
    },

    /** Ranges of merged partial states (from runs of several workers over parts of the samples). */
    merge(handle: string, parts: readonly TensorStates[]): RangeTable {
      const h = held.get(handle);
      const merged = parts.reduce((a, b) => mergeTensorStates(a, b), new Map() as TensorStates);
      return rangeTable(merged, h.calibrator.observable);
    },

    /** Asks the running (and queued) calibrations of `handle` to stop after their current sample. */
    cancel(handle: string): void {
      if (held.has(handle)) for (const token of held.get(handle).active) token.cancelled = true;
    },

    async close(handle: string): Promise<void> {
      if (!held.has(handle)) return;
      await held.get(handle).calibrator.release();
      held.delete(handle);
    },
  };
}

export type CalibrationApi = ReturnType<typeof createCalibrationApi>;
