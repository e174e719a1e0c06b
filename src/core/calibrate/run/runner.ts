/**
 * The calibration loop of one model, whatever runtime runs it (onnxruntime-web in the page's workers,
 * onnxruntime-node in the command line, both injected as a `Runtime`): expose every observable tensor as an
 * output, run each sample, fold the float32 outputs into collector states (`foldRun`), and say how
 * far it got. onnxruntime has no API for intermediate tensors, so the model is rewritten (core
 * `exposeTensors`); when one run's outputs exceed the memory budget (measured on the first sample),
 * the tensors are split into chunks and each chunk is a pass of its own over the samples, one session
 * alive at a time.
 *
 * One memory budget and one chunking rule for every runtime: a chunk is a pass of its own over the samples
 * (the samples are produced again for it), so only one session's outputs are ever alive.
 *
 * Sequential calibration (sequential.ts) adds passes after the float one, each on the model quantized with the
 * ranges known so far, gathering one depth group of tensors afresh; ConsumerMSE ends with its search. Those
 * passes are rounds (`SequentialRound`): a run split over workers or machines runs one round at a time on
 * every share, merges the round's statistics and fixes the ranges before the next round starts anywhere, so
 * that it computes what one run over all the samples computes.
 *
 * What it must not do: know how samples are made (images, .npy, random: `SampleSource` does that), talk
 * to the page, or touch the DOM or a file system. Cancellation is a flag the caller flips; it is read
 * between samples.
 */
import { sessionModel, type ModelProto } from '../../onnx/index.ts';
import { UnsupportedModelError } from '../../onnx/errors.ts';
import type { ModelSummary } from '../../onnx/modelSummary.ts';
import type { BackendInfo, Feed, InferenceRunner, Runtime, RunTensor } from '../../runtime/session.ts';
import type { QuantConfig } from '../../quantize/config.ts';
import { chunkTensors, exposeOnly, observableTensors } from './expose.ts';
import { exposeAcrossScopes } from './exposeSubgraphs.ts';
import { readableBodyTensors, type ScopeStep } from '../../onnx/scopes.ts';
import { canPackOutputs, packOutputs, unpackOutputs, type PackedOutputs } from './packOutputs.ts';
import {
  foldExtremesRun,
  foldRun,
  foldRunInto,
  rangesOf,
  type Fold,
  type RunOutput,
  type TensorStates,
} from './statistics.ts';
import { canReduceInGraph, readReduced, reduceInGraph, type ReducedOutputs } from './reduceInGraph.ts';
import { deriveStates, planStateDerivations, RunExtremes, type StateDerivation } from './derivedStates.ts';
import { activationCollector } from '../collectors/methodFromConfig.ts';
import { sharingBatchExtremes } from '../collectors/minmax.ts';
import { CalibrationCancelledError, CustomOpsError, InferenceError } from '../errors.ts';
import { consumerSearch, SEARCH_SAMPLES } from '../search/consumerSearch.ts';
import type { ConsumerMseState } from '../collectors/minmse.ts';
import { computedTensors, depthGroups, quantizedReadout } from './sequential.ts';
import { quantizeModel } from '../../quantize/quantizeModel.ts';
import type { TensorRange } from '../../quantize/plan.ts';

/**
 * Most bytes of outputs one run may return before tensors are split into chunks, in every runtime: WASM has
 * 4 GB in all, and the folded batch is copied out of it once more.
 */
export const RUN_OUTPUT_BUDGET_BYTES = 256 * 1024 * 1024;

/**
 * Throws a named error when the model cannot be calibrated: ops of custom domains (CustomOpsError), an
 * already quantized model (UnsupportedModelError). Float16 models calibrate as their float32 form (halfFloat/float16.ts asFloat32). `label` names the model at the start of the
 * message (`"model.onnx"`, `The model`).
 */
export function assertCalibratable(summary: Pick<ModelSummary, 'customOps' | 'quantization'>, label: string): void {
  if (summary.customOps.length > 0) {
    const list = summary.customOps.map((o) => `${o.domain}.${o.opType}`).join(', ');
    throw new CustomOpsError(
      `${label} uses ops of custom domains (${list}). onnxruntime cannot run them without their custom-op library, so this model cannot be calibrated here.`,
    );
  }
  if (summary.quantization.state !== 'float') {
    throw new UnsupportedModelError(
      `${label} is already quantized (${summary.quantization.ops.join(', ')}): calibrate the float model.`,
    );
  }
}
/** Why one sample was left out. */
export interface SkippedSample {
  file: string;
  reason: string;
}

/** One calibration sample, ready to run; `skip` when it could not be made (a corrupt image). */
/** A sample's feeds (and, for an image, its size in pixels: where a detector's boxes map back to), or why it was skipped. */
export type Produced = { feeds: Record<string, Feed>; size?: { width: number; height: number } } | { skip: string };

/** The samples of a run, made on demand (a pass may ask for the same index again). */
export interface SampleSource {
  readonly count: number;
  name(index: number): string;
  produce(index: number): Promise<Produced>;
}

export interface Progress {
  /** Samples finished in the whole run (over all passes, scaled to samples). */
  done: number;
  total: number;
  imagesPerSecond: number;
  /** Seconds left at the current pace; null until there is a pace. */
  etaSeconds: number | null;
  skipped: SkippedSample[];
  /** 1-based pass and number of passes (more than one when the tensors are chunked). */
  pass: number;
  passes: number;
  backend: BackendInfo | null;
  /** Workers sharing the run (set by the page when it splits a run; absent means one). */
  workers?: number;
}

/**
 * One round of a sequential calibration run apart from the others (on one share of the samples). Round 0 is the
 * float pass: the statistics of every tensor. Round g ≥ 1 quantizes the model with `ranges` (those of the merged
 * statistics of every share after round g − 1) and gathers sequential pass g afresh (a depth group, or one chunk
 * of a group whose outputs exceed the memory budget): its outcome holds the states of those tensors only, which
 * replace theirs in the merged statistics. Each pass of a run over all samples is such a round.
 */
export interface SequentialRound {
  readonly index: number;
  readonly ranges: ReadonlyMap<string, TensorRange> | null;
}

export interface CalibrationOutcome {
  states: TensorStates;
  /** The statistics of each configuration of `calibrate`'s `alsoFor`, from the same runs; absent without it. */
  alsoStates?: TensorStates[];
  /** Samples folded (by the float pass; in a later round run alone, by that round: none where it gathers nothing). */
  used: number;
  skipped: SkippedSample[];
  passes: number;
  backend: BackendInfo;
  seconds: number;
  /** Bytes of all outputs of one run, measured on the first sample. */
  runOutputBytes: number;
  /** Rounds of a sequential calibration (the float pass and one per depth group); absent for other methods. */
  rounds?: number;
}

const byteLengthOf = (data: unknown): number => (ArrayBuffer.isView(data) ? data.byteLength : 0);

/**
 * Outputs named by the tensors they carry up from subgraphs; an empty one (an If branch that did not run returned its
 * placeholder, a Loop that ran no iteration) is dropped, so it adds nothing to the statistics.
 */
function carriedBack<O extends RunOutput>(
  outputs: Record<string, O>,
  carried: ReadonlyMap<string, string>,
): Record<string, O> {
  const out: Record<string, O> = {};
  for (const [name, o] of Object.entries(outputs)) {
    const tensor = carried.get(name);
    if (tensor === undefined) out[name] = o;
    else if (byteLengthOf(o.data) > 0) out[tensor] = o;
  }
  return out;
}

/** Feeds as run outputs, so graph inputs are folded like any other tensor. */
function feedsAsOutputs(feeds: Readonly<Record<string, Feed>>, wanted: ReadonlySet<string>): Record<string, RunOutput> {
  const out: Record<string, RunOutput> = {};
  for (const [name, f] of Object.entries(feeds)) if (wanted.has(name)) out[name] = { type: f.type, data: f.data };
  return out;
}

/** Methods that gather beyond the float pass (on the partly quantized model, or with a search): one configuration a run. */
const GATHER_BEYOND_FLOAT_PASS: ReadonlySet<string> = new Set(['Sequential', 'ConsumerMSE']);

interface Session {
  runner: InferenceRunner;
  /** Whether runs on this session fold the feeds too (the first pass does). */
  foldsFeeds: boolean;
  /** The packed outputs' layout, where the exposed tensors come back as one (packOutputs.ts). */
  packed: PackedOutputs | null;
  /** Outputs that carry a tensor of a subgraph up (exposeSubgraphs.ts), with the tensor each carries. */
  carried: ReadonlyMap<string, string>;
  /** Where the model computes each tensor's extremes itself (reduceInGraph.ts): MinMax-type statistics. */
  reduced: ReducedOutputs | null;
}

/** What a configuration's sessions expose (ModelCalibrator.planFor). */
interface ExposurePlan {
  readonly key: string;
  /** The node outputs to observe: the main graph's, and bodies' with EnableSubgraph. */
  readonly produced: readonly string[];
  /** Whether the sessions reduce the tensors to their extremes in the graph instead of returning them. */
  readonly reduced: boolean;
  /** Tensors not exposed, their states derived from others' after the float pass (derivedStates.ts). */
  readonly derived: ReadonlyMap<string, StateDerivation>;
}

/** Options of a calibrator. */
export interface CalibratorOptions {
  /**
   * MinMax-type statistics computed inside the model (reduceInGraph.ts) rather than from every exposed tensor; true
   * unless a caller asks for the exposed path (tests and benchmarks comparing the two).
   */
  readonly statisticsInGraph?: boolean;
  /**
   * States that follow exactly from other tensors' (derivedStates.ts: reshapes, float32 Casts, a histogram's
   * Concat) derived rather than exposed; true unless a caller asks for every tensor exposed (tests comparing the two).
   */
  readonly deriveStates?: boolean;
  /**
   * Main-graph node outputs neither exposed nor gathered, where the caller uses the statistics for one quantization
   * plan alone and the plan reads no range of theirs (core/quantize/unreadRanges.ts).
   */
  readonly unobserved?: ReadonlySet<string>;
}

export class ModelCalibrator {
  /** Graph inputs and node outputs, in graph order, then those inside If/Loop/Scan bodies: every tensor that gets a range. */
  readonly observable: readonly string[];
  /** The observable tensors inside bodies, with the path of control-flow nodes to each. */
  private readonly inBodies: ReadonlyMap<string, readonly ScopeStep[]>;
  /**
   * The node outputs the current plan observes: what sessions expose and chunks split (graph inputs come from the
   * feeds). Body tensors are among them only where the configuration asks for EnableSubgraph.
   */
  private produced: readonly string[];
  /** Whether the current plan's sessions reduce in the graph. */
  private reduced = false;
  /** The current plan's derived tensors (not among `produced`). */
  private derived: ReadonlyMap<string, StateDerivation> = new Map();
  /** The float pass's batches of the tensors the current plan's merges read (MinMax states of a Concat). */
  private runExtremes = new RunExtremes(new Map());
  /** The key of the plan the cached session and chunks belong to. */
  private planKey: string | null = null;
  /** Set once onnxruntime refused a reduced model: later plans expose the tensors instead. */
  private reduceRefused = false;
  /** Sessions that read suspect tensors in full (reduceInGraph.ts), by the tensors they expose. */
  private suspectSessions = new Map<string, InferenceRunner>();
  private readonly graphInputs: ReadonlySet<string>;
  private full: Session | null = null;
  /** Null until the first run measured the outputs; then one chunk (everything) or several. */
  private chunks: string[][] | null = null;
  private outputBytes = 0;
  /** Bytes of each output of one run, measured on the first sample. */
  private outputSizes = new Map<string, number>();
  private backend: BackendInfo | null = null;

  constructor(
    private readonly model: ModelProto,
    private readonly runtime: Runtime,
    private readonly budgetBytes = RUN_OUTPUT_BUDGET_BYTES,
    private readonly options: CalibratorOptions = {},
  ) {
    this.inBodies = readableBodyTensors(model);
    this.observable = [...observableTensors(model), ...this.inBodies.keys()];
    this.graphInputs = new Set(model.graph!.input.map((v) => v.name ?? ''));
    this.produced = this.mainProduced();
  }

  /** The main graph's node outputs among the observable tensors. */
  private mainProduced(): string[] {
    const unobserved = this.options.unobserved;
    return this.observable.filter((t) => !this.graphInputs.has(t) && !this.inBodies.has(t) && !unobserved?.has(t));
  }

  /**
   * What `config`'s sessions expose: bodies' tensors only with EnableSubgraph (without it nothing inside a body is
   * quantized, so reading them out would be cost alone); reduced in the graph where the activations' collector keeps
   * only extremes (MinMax, NonOverflow) and no body tensor is read (those are carried up whole, exposeSubgraphs.ts).
   */
  private planFor(config: QuantConfig, alsoFor: readonly QuantConfig[] = []): ExposurePlan {
    const bodies = config.extraOptions.EnableSubgraph && this.inBodies.size > 0;
    const produced = bodies ? this.observable.filter((t) => !this.graphInputs.has(t)) : this.mainProduced();
    const keepsExtremes = (c: QuantConfig) => {
      const method = activationCollector(c);
      return method === 'MinMax' || method === 'NonOverflow';
    };
    // Several configurations folded from the same runs (alsoFor) reduce in the graph only where every one keeps extremes.
    const reduced =
      (this.options.statisticsInGraph ?? true) &&
      !this.reduceRefused &&
      !bodies &&
      [config, ...alsoFor].every(keepsExtremes) &&
      produced.length > 0 &&
      canReduceInGraph(this.model);
    // Exposed main-graph tensors of the float pass alone: the later passes of Sequential gather tensors afresh.
    const derived =
      (this.options.deriveStates ?? true) &&
      !reduced &&
      !bodies &&
      ![config, ...alsoFor].some((c) => GATHER_BEYOND_FLOAT_PASS.has(c.calibrationMethod))
        ? planStateDerivations(
            this.model,
            [...this.observable.filter((t) => this.graphInputs.has(t)), ...produced],
            [config, ...alsoFor].map(activationCollector),
          )
        : new Map<string, StateDerivation>();
    return {
      key: `${bodies ? 'bodies' : 'main'}/${reduced ? 'reduced' : 'exposed'}${derived.size > 0 ? '/derived' : ''}`,
      produced: derived.size > 0 ? produced.filter((t) => !derived.has(t)) : produced,
      reduced,
      derived,
    };
  }

  /** Makes `plan` the current one; the session and chunks of another plan are dropped. */
  private async adopt(plan: ExposurePlan): Promise<void> {
    if (plan.key === this.planKey) return;
    await this.release();
    this.planKey = plan.key;
    this.produced = plan.produced;
    this.reduced = plan.reduced;
    this.derived = plan.derived;
    this.runExtremes = new RunExtremes(plan.derived);
    this.chunks = null;
    this.outputBytes = 0;
    this.outputSizes = new Map();
  }

  /** A float session exposing `tensors`, for `runs` runs (the runtime weighs a backend's start-up against them). */
  private async session(tensors: readonly string[], foldsFeeds: boolean, runs: number): Promise<Session> {
    if (this.reduced && tensors.length > 0) {
      const reduced = reduceInGraph(this.model, tensors);
      try {
        const { runner, backend } = await this.runtime.createSession(sessionModel(reduced.model), 'float', { runs });
        this.backend = backend;
        return { runner, foldsFeeds, packed: null, carried: new Map(), reduced };
      } catch {
        // A runtime that cannot run the reductions runs the tensors exposed, as before; the error, if any, is its own.
        this.reduceRefused = true;
        this.reduced = false;
        this.planKey = null;
      }
    }
    // On a GPU every output is a round trip of its own: many exposed tensors come back packed as one.
    const exposure = exposeAcrossScopes(this.model, tensors, this.inBodies);
    const exposed: ModelProto = { ...this.model, graph: exposure.graph };
    const packed =
      exposure.outputs.length > 1 && canPackOutputs(this.model) && (await this.runtime.packsOutputs?.()) === true
        ? packOutputs(exposed, exposure.outputs)
        : null;
    // With nothing to expose, the model as it is: loading it still proves onnxruntime can run it.
    const bytes = sessionModel(packed ? packed.model : tensors.length > 0 ? exposed : this.model);
    try {
      const { runner, backend } = await this.runtime.createSession(bytes, 'float', { runs });
      this.backend = backend;
      return { runner, foldsFeeds, packed, carried: exposure.tensorOf, reduced: null };
    } catch (e) {
      if (e instanceof InferenceError) throw e;
      throw new InferenceError(
        `onnxruntime could not load the model for calibration: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }

  /** Runs one sample and folds it; returns each output's bytes (feeds included when the session observes them). */
  private async run(
    session: Session,
    feeds: Record<string, Feed>,
    folds: readonly Fold[],
  ): Promise<Map<string, number>> {
    let outputs: Record<string, RunTensor>;
    const sizes = new Map<string, number>();
    try {
      // No float32 tensor for the nodes to compute (a model of comparisons, shapes, indices): the feeds are all there is.
      outputs = this.produced.length > 0 ? await session.runner.run(feeds) : {};
      if (session.reduced) {
        const { extremes, suspect } = readReduced(session.reduced, outputs, feeds);
        for (const { states, config } of folds) foldExtremesRun(states, extremes, config);
        // Four numbers a tensor came back, whatever its size.
        for (const t of session.reduced.tensors) sizes.set(t, 20);
        outputs = suspect.length > 0 ? await this.readSuspect(suspect, feeds) : {};
      }
      if (session.packed) outputs = unpackOutputs(session.packed, outputs);
      if (session.carried.size > 0) outputs = carriedBack(outputs, session.carried);
    } catch (e) {
      if (e instanceof InferenceError) throw e;
      throw new InferenceError(`onnxruntime failed to run the model: ${e instanceof Error ? e.message : String(e)}`);
    }
    // A runtime that probes backends on the first runs settles on one after them.
    if (session.runner.backend) this.backend = session.runner.backend();
    for (const [name, o] of Object.entries(outputs)) sizes.set(name, byteLengthOf(o.data));
    const fed = session.foldsFeeds ? feedsAsOutputs(feeds, this.graphInputs) : null;
    // The configurations' MinMax folds and the Concat merges' record read each output's extremes from one scan.
    sharingBatchExtremes(() => {
      foldRunInto(folds, outputs);
      if (fed) foldRunInto(folds, fed);
      this.runExtremes.record(outputs);
      if (fed) this.runExtremes.record(fed);
    });
    return sizes;
  }

  /**
   * The values of tensors whose reductions met NaN or infinity (reduceInGraph.ts), read in full on a session exposing
   * just them (kept for later samples, where the same tensors usually come back).
   */
  private async readSuspect(
    tensors: readonly string[],
    feeds: Record<string, Feed>,
  ): Promise<Record<string, RunTensor>> {
    const key = tensors.join('\n');
    let runner = this.suspectSessions.get(key);
    if (!runner) {
      ({ runner } = await this.runtime.createSession(sessionModel(exposeOnly(this.model, tensors)), 'float'));
      this.suspectSessions.set(key, runner);
    }
    return runner.run(feeds);
  }

  /**
   * The passes of a sequential calibration after the float one: each depth group, in chunks where its outputs
   * exceed the budget (known once a sample has run; before, one pass a group).
   */
  private sequentialPasses(): string[][] {
    return depthGroups(
      this.model,
      computedTensors(
        this.model,
        this.produced.filter((t) => !this.inBodies.has(t)),
      ),
    ).flatMap((group) => chunkTensors(group, this.outputSizes, this.budgetBytes));
  }

  /** Rounds of a sequential calibration of this model: the float pass and one per sequential pass (exact once a sample has run). */
  sequentialRounds(): number {
    return 1 + this.sequentialPasses().length;
  }

  /**
   * Calibrates on every sample of `source`; reports progress; stops with CalibrationCancelledError when `cancelled()`.
   * With `round` (Sequential only), runs that round alone (SequentialRound) and returns its statistics.
   * With `alsoFor`, the same runs are folded into one more set of statistics per configuration (`alsoStates`, in
   * that order): several methods' statistics from one pass over the samples (core/evaluate/calibrationMethodChoice.ts).
   * Those configurations, and `config` with them, must gather on the float model alone (not Sequential, not ConsumerMSE).
   */
  async calibrate(
    source: SampleSource,
    config: QuantConfig,
    cancelled: () => boolean,
    onProgress: (p: Progress) => void,
    round?: SequentialRound,
    alsoFor: readonly QuantConfig[] = [],
  ): Promise<CalibrationOutcome> {
    const start = performance.now();
    await this.adopt(this.planFor(config, alsoFor));
    const states: TensorStates = new Map();
    const alsoStates = alsoFor.map((): TensorStates => new Map());
    if (alsoFor.length > 0 && [config, ...alsoFor].some((c) => GATHER_BEYOND_FLOAT_PASS.has(c.calibrationMethod)))
      throw new RangeError(
        `statistics of several configurations in one pass are gathered on the float model alone: not with ${[...GATHER_BEYOND_FLOAT_PASS].join(' or ')}`,
      );
    const folds: Fold[] = [{ states, config }, ...alsoFor.map((c, i) => ({ states: alsoStates[i], config: c }))];
    const skipped: SkippedSample[] = [];
    const total = source.count;
    // Sequential calibration: the float pass, then one pass per depth group (or per chunk of one) on the partly quantized model.
    const isSequential = config.calibrationMethod === 'Sequential';
    const badRound = (rounds: number | string) =>
      new RangeError(
        `round ${round!.index} of a calibration that has ${rounds} rounds${round!.index > 0 && !round!.ranges ? ', without the ranges of the rounds before' : ''}`,
      );
    if (
      round &&
      (!isSequential || !Number.isInteger(round.index) || round.index < 0 || (round.index > 0 && !round.ranges))
    )
      throw badRound(isSequential ? this.sequentialRounds() : 'no');
    let sequential = isSequential ? this.sequentialPasses() : null;
    const floatPass = !round || round.index === 0;
    if (floatPass) this.runExtremes.clear();
    let passes = (this.chunks?.length ?? 1) + (sequential?.length ?? 0);
    // A round run alone numbers its passes as in the whole run, so progress reads on across rounds.
    let pass = round && round.index > 0 ? (this.chunks?.length ?? 1) + round.index - 1 : 0;
    let doneInPass = 0;
    let used = 0;
    let firstDoneAt: number | null = null;

    const progress = (): Progress => {
      const samplesDone = ((Math.max(pass, 1) - 1) * total + doneInPass) / passes;
      const now = performance.now();
      // The first sample pays for building the session: while samples are left, the pace (and the time left) is
      // measured from after it. Once every sample is done the rate is the whole run's, the figure the command's
      // closing line ("calibrated on 3 images in 37.0 s (12.3 s per image)") and the page read, not a second one.
      const finished = samplesDone >= total;
      const pace =
        !finished && firstDoneAt !== null && samplesDone > 1 && now > firstDoneAt
          ? ((samplesDone - 1) * 1000) / (now - firstDoneAt)
          : samplesDone > 0 && now > start
            ? (samplesDone * 1000) / (now - start)
            : 0;
      return {
        done: Math.floor(samplesDone + 1e-9),
        total,
        imagesPerSecond: pace,
        etaSeconds: pace > 0 ? (total - samplesDone) / pace : null,
        skipped: skipped.slice(),
        pass: Math.max(pass, 1),
        passes,
        backend: this.backend,
      };
    };
    const check = () => {
      if (cancelled()) throw new CalibrationCancelledError('Calibration was cancelled: no ranges were computed.');
    };
    const bad = new Set<number>();
    /** The sample's feeds, or null when it is (or was found) unusable. */
    const feedsOf = async (i: number) => {
      if (bad.has(i)) return null;
      const made = await source.produce(i);
      check();
      if ('feeds' in made) return made.feeds;
      bad.add(i);
      skipped.push({ file: source.name(i), reason: made.skip });
      return null;
    };
    /** Samples `from` on through `fold`, one pass's progress and cancel points. */
    const eachSample = async (from: number, fold: (feeds: Record<string, Feed>) => Promise<void>) => {
      for (let i = from; i < total; i++) {
        check();
        const feeds = await feedsOf(i);
        if (feeds) await fold(feeds);
        doneInPass = i + 1;
        firstDoneAt ??= performance.now();
        onProgress(progress());
      }
    };
    const runPass = (session: Session, from: number) =>
      eachSample(from, async (feeds) => {
        await this.run(session, feeds, folds);
        if (pass === 1) used++;
      });

    // Until the outputs are measured, samples run with every tensor exposed; the first usable one
    // decides whether later ones must be chunked. Samples before `next` are then fully folded (by the
    // float pass; a later round run alone only measures on it, into statistics it drops).
    let next = 0;
    if (this.chunks === null) {
      this.full ??= await this.session(this.produced, true, total);
      if (floatPass) pass = 1;
      onProgress(progress()); // the backend is known now
      while (next < total && this.chunks === null) {
        check();
        const feeds = await feedsOf(next);
        next++;
        if (floatPass) doneInPass = next;
        if (feeds) {
          const sizes = await this.run(this.full, feeds, floatPass ? folds : [{ states: new Map(), config }]);
          if (floatPass) used++;
          firstDoneAt = performance.now();
          this.outputBytes = [...sizes.values()].reduce((a, b) => a + b, 0);
          this.outputSizes = sizes;
          this.chunks =
            this.outputBytes > this.budgetBytes
              ? chunkTensors(this.produced, sizes, this.budgetBytes)
              : [this.produced.slice()];
          if (sequential) sequential = this.sequentialPasses(); // the groups' chunks are known now
          passes = this.chunks.length + (sequential?.length ?? 0);
          if (!floatPass) pass = this.chunks.length + round!.index - 1;
        }
        onProgress(progress());
      }
    }
    if (floatPass) {
      pass = 1;
      if (this.chunks !== null && this.chunks.length === 1) {
        this.full ??= await this.session(this.produced, true, total - next);
        await runPass(this.full, next);
      } else if (this.chunks !== null) {
        await this.release();
        for (let c = 0; c < this.chunks.length; c++) {
          pass = c + 1;
          doneInPass = next;
          const s = await this.session(this.chunks[c], c === 0, total - next);
          try {
            await runPass(s, next);
          } finally {
            await s.runner.release();
          }
        }
      }
    }
    if (floatPass) for (const fold of folds) this.addDerived(fold.states);
    // A later round on a share without one usable sample has nothing to gather (nor the outputs' sizes to plan by).
    const nothingUsable = this.chunks === null;
    if (round && !nothingUsable && round.index > (sequential?.length ?? 0)) throw badRound(1 + sequential!.length);
    /** The sequential passes this call runs, each on the model quantized with the ranges as they stand before it. */
    const gathering =
      !sequential || nothingUsable ? [] : !round ? sequential : round.index === 0 ? [] : [sequential[round.index - 1]];
    if (gathering.length > 0) await this.release();
    for (const tensors of gathering) {
      pass++;
      doneInPass = 0;
      const gathered = await this.gatherQuantized(tensors, round?.ranges ?? rangesOf(states), config, (gather) =>
        eachSample(0, async (feeds) => {
          await gather(feeds);
          if (!floatPass) used++;
        }),
      );
      for (const [t, st] of gathered) states.set(t, st);
      doneInPass = total; // a pass with nothing to gather ran no sample, and is done too
    }
    await this.searchConsumers(states, config, source, bad, check);
    onProgress(progress());
    return {
      states,
      ...(alsoFor.length > 0 ? { alsoStates } : {}),
      used,
      skipped,
      passes,
      backend: this.backend!,
      seconds: (performance.now() - start) / 1000,
      runOutputBytes: this.outputBytes,
      ...(sequential ? { rounds: sequential.length + 1 } : {}),
    };
  }

  /**
   * The derived tensors' states added to `states`, which then lists its tensors in the order exposing them all would
   * have (each run's outputs in the order a JavaScript object keeps their names, the feeds after them).
   */
  private addDerived(states: TensorStates): void {
    if (this.derived.size === 0) return;
    deriveStates(states, this.derived, this.runExtremes);
    const folded = new Map(states);
    states.clear();
    for (const t of Object.keys(Object.fromEntries(this.mainProduced().map((name) => [name, 0])))) {
      const state = folded.get(t);
      if (state === undefined) continue;
      states.set(t, state);
      folded.delete(t);
    }
    for (const [t, state] of folded) states.set(t, state);
  }

  /**
   * One pass of a sequential calibration: quantizes the model with `ranges`, and gathers `tensors` afresh on it
   * (their values before their own quantization; tensors the quantized model does not compute are left out of
   * the states returned). `each` runs the samples through `gather`.
   */
  private async gatherQuantized(
    tensors: readonly string[],
    ranges: ReadonlyMap<string, TensorRange>,
    config: QuantConfig,
    each: (gather: (feeds: Record<string, Feed>) => Promise<void>) => Promise<void>,
  ): Promise<TensorStates> {
    const fresh: TensorStates = new Map();
    const quantized = quantizeModel(this.model, ranges, config).model;
    const readout = quantizedReadout(quantized, tensors);
    if (readout.size === 0) return fresh;
    const names = [...readout.values()];
    let runner: InferenceRunner;
    try {
      ({ runner } = await this.runtime.createSession(sessionModel(exposeOnly(quantized, names)), 'quantized'));
    } catch (e) {
      throw new InferenceError(
        `onnxruntime could not load the partly quantized model for sequential calibration: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
    try {
      await each(async (feeds) => {
        let outputs;
        try {
          outputs = await runner.run(feeds);
        } catch (e) {
          throw new InferenceError(
            `onnxruntime failed to run the partly quantized model: ${e instanceof Error ? e.message : String(e)}`,
          );
        }
        const renamed: Record<string, RunOutput> = {};
        for (const [t, name] of readout) if (outputs[name]) renamed[t] = outputs[name];
        foldRun(fresh, renamed, config);
      });
    } finally {
      await runner.release();
    }
    return fresh;
  }

  /**
   * ConsumerMSE states get their range from the consumer search (consumerSearch.ts), run on the first
   * SEARCH_SAMPLES usable samples after the statistics are complete; other states are left alone.
   */
  private async searchConsumers(
    states: TensorStates,
    config: QuantConfig,
    source: SampleSource,
    bad: ReadonlySet<number>,
    check: () => void,
  ): Promise<void> {
    const searched = new Map<string, ConsumerMseState>();
    // Inside bodies the search has no consumers to run: those keep MinMSE's range.
    for (const [name, s] of states) if (s.method === 'ConsumerMSE' && !this.inBodies.has(name)) searched.set(name, s);
    if (searched.size === 0) return;
    const samples: Record<string, Feed>[] = [];
    for (let i = 0; i < source.count && samples.length < SEARCH_SAMPLES; i++) {
      if (bad.has(i)) continue;
      const made = await source.produce(i);
      if ('feeds' in made) samples.push(made.feeds);
    }
    await this.release();
    const histograms = new Map([...searched].map(([name, s]) => [name, s.hist]));
    const chosen = await consumerSearch(
      this.model,
      histograms,
      { quantType: config.activationType, symmetric: config.extraOptions.ActivationSymmetric },
      this.runtime,
      samples,
      check,
    );
    for (const [name, range] of chosen) searched.get(name)!.chosen = range;
  }

  /** Backend of the last session, once there is one. */
  get backendInfo(): BackendInfo | null {
    return this.backend;
  }

  async release(): Promise<void> {
    await this.full?.runner.release();
    this.full = null;
    for (const runner of this.suspectSessions.values()) await runner.release();
    this.suspectSessions.clear();
  }
}
