/**
 * The recovery slice: "Recover accuracy" after quantizing. The user either quantizes with the algorithms
 * they switch on (automatic mixed precision within a budget, CLE, bias correction, AdaRound or AdaQuant with
 * iterations and learning rate), or sets a
 * target (output cosine, PSNR or top-1 agreement) and lets the studio climb the reference's best-practice
 * ladder until a rung meets it. It holds those choices, the live progress (rung, phase, layer i of n and
 * the tuned layers' loss curves), every measured rung's numbers and the handle of its model (the models
 * stay in the recovery worker), and which rung the user adopted: "Use this model" makes a rung the run's
 * result, so download and evaluation work on it as on any quantization.
 *
 * It talks to the worker only through the RecoveryService it is given (tests pass a fake). A new model
 * resets it; a cancelled climb keeps the rungs measured before the cancel.
 */
import type { GraphOptimization } from '../../core/runtime/graphOptimization.ts';
import type { StateCreator } from 'zustand';
import type { NodeId } from '../../core/onnx/model.ts';
import { heapShortfall } from '../../core/runtime/wasmHeap.ts';
import { validateConfig, type QuantConfig } from '../../core/quantize/config.ts';
import { withRecoverySwitches } from '../../core/recovery/recoverySwitches.ts';
import type { PresetName } from '../../core/quantize/presets.ts';
import {
  DEFAULT_LADDER_ORDER,
  LADDER_METRICS,
  TASK_LADDER_METRICS,
  adaquantStrided,
  isAdaquantStride,
  isLadderOrder,
  type LadderMetric,
  type LadderOrder,
} from '../../core/recovery/ladder.ts';
import { DEFAULT_PRECISION_BUDGET, type PrecisionBudget } from '../../core/quantize/precisionBudget.ts';
import type { Report } from '../../core/report/index.ts';
import type { BackendInfo } from '../../core/runtime/session.ts';
import type {
  LadderOutcome,
  LadderRequest,
  LadderSoFar,
  LayerCurve,
  PickedModel,
  RecoveryOutcome,
  RecoveryWorkerProgress,
  RecoveryRequest,
  RungSummary,
} from '../remote/workerTypes.ts';
import type { CalibrationSlice } from './calibrationSlice.ts';
import type { EvaluationSlice } from './evaluationSlice.ts';
import type { ExclusionSlice } from './exclusionSlice.ts';
import { toModelError, type ModelSlice } from './modelSlice.ts';
import { quantizedFileName, type RunResult, type RunSlice } from './runSlice.ts';
import { evaluationSamples, samplesOf } from './samples.ts';
import { currentConfig, currentTaskHead } from './selectors.ts';
import { failedRun } from './failedRun.ts';
import { keptLadderReport } from './keptLadderReport.ts';
import { isSensitiveShare } from '../../core/recovery/sensitiveLayers.ts';

export type { LayerCurve, RecoveryWorkerProgress, RungSummary } from '../remote/workerTypes.ts';

/** What the slice needs from the recovery worker (src/ui/remote implements it). */
export interface RecoveryService {
  recover(
    modelHandle: string,
    request: RecoveryRequest,
    onProgress: (p: RecoveryWorkerProgress) => void,
  ): Promise<RecoveryOutcome>;
  ladder(
    modelHandle: string,
    request: LadderRequest,
    onProgress: (p: RecoveryWorkerProgress) => void,
  ): Promise<LadderOutcome>;
  /** The bytes of a measured model, with its report and configuration. */
  pick(modelHandle: string, rungHandle: string): Promise<PickedModel>;
  /** The climb's report (core Report with its ladder section) for the rung at `index`. */
  ladderReport(modelHandle: string, ladderHandle: string, index: number): Promise<Report>;
  /** Stops the running recovery or climb. */
  cancel(): void;
  /** Ends the worker (its models are gone). */
  release(): void;
}

export type FinetuneChoice = 'none' | 'adaround' | 'adaquant';

export interface RecoveryOptions {
  cle: boolean;
  /** Attention blocks quantized as the NPU runs them (enableNpuTransformer). */
  attention: boolean;
  /** SmoothQuant before calibration (includeSq). */
  smoothQuant: boolean;
  /** SmoothQuant's migration strength α in [0, 1] (Quark SmoothAlpha), for this run and the ladder's SmoothQuant rungs. */
  smoothAlpha: number;
  biasCorrection: boolean;
  finetune: FinetuneChoice;
  /** FastFinetune NumIterations per layer. */
  iterations: number;
  /** FastFinetune LearningRate; null → the algorithm's default (0.1 AdaRound, 1e-5 AdaQuant). */
  learningRate: number | null;
  /**
   * Fine-tune only the layers whose measured added noise sums to this share of all, in (0, 1] (1: every layer), for
   * this run and the ladder's fine-tuning rungs; null → the core's default, every layer.
   */
  sensitiveShare: number | null;
  /** The ladder's AdaQuant rungs take 1/k of the iterations at k × the learning rate (core adaquantStride); 1: as set. */
  adaquantStride: number;
  /** Automatic mixed precision before the algorithms: what hurts most leaves 8 bits, within the budget. */
  mixedPrecision: boolean;
  /** Shares that may leave 8 bits: activations and weights at 16 bits, nodes float (each in [0, 1]). */
  budget: PrecisionBudget;
  /** The figure the search aims for on the calibration images (of `mixedMetric`). */
  mixedTarget: number;
  /** What `mixedTarget` measures: the output cosine (default) or a task figure through the chosen head. */
  mixedMetric: LadderMetric;
}

export interface LadderChoice {
  metric: LadderMetric;
  value: number;
  /** Climb XINT8 → A8W8 → A16W8 (the reference's); false climbs the current preset only. */
  allFormats: boolean;
  /** End with the measured exclusion search. */
  exclusions: boolean;
  /** Judge every rung as the NPU runs it (float parts in BF16, the CLI's --npu-bf16). */
  npuBf16: boolean;
  /** The onnxruntime level every rung is judged at: onnxruntime-web's default ('all', the default) or 'basic'. */
  aim: GraphOptimization;
  /** The order rungs are climbed in (the CLI's --order): 8-bit routes first (default) or fastest. */
  order: LadderOrder;
  /** Minutes the climb may take (the CLI's --time-budget); null: no budget. */
  timeBudgetMinutes: number | null;
}

export type RecoveryStatus = 'idle' | 'running' | 'done' | 'cancelled' | 'error';

export interface RecoveryState {
  options: RecoveryOptions;
  ladder: LadderChoice;
  status: RecoveryStatus;
  /** What runs or ran last. */
  mode: 'recover' | 'ladder' | null;
  progress: RecoveryWorkerProgress | null;
  /** The current rung's tuned layers so far (live), for the loss curves. */
  curves: LayerCurve[];
  /** Measured configurations: one for a single run, every rung for a climb. */
  rungs: RungSummary[];
  /** The finished climb (absent for a single run). */
  climb: Pick<
    LadderOutcome,
    'handle' | 'stopped' | 'chosen' | 'target' | 'order' | 'skippedRungs' | 'shortfall'
  > | null;
  /** Handle of the rung that is the run's result now. */
  adopted: string | null;
  /** A rung being picked ("Use this model" waits for its bytes). */
  picking: string | null;
  /** When the run started and when its current rung did (ms, the page's clock), for elapsed times and estimates. */
  startedAt: number | null;
  rungStartedAt: number | null;
  /** The climb's handle in the worker from its start (its report and rungs are there before it ends, and after a Cancel). */
  liveClimb: string | null;
  /** The climb so far as its last finished rung left it: its report once the worker stopped (keptLadderReport.ts). */
  ladderSoFar: LadderSoFar | null;
  /** Cancel was pressed; the rung in flight is stopping (a climb keeps what it measured). */
  cancelling: boolean;
  /** The backend the last finished run's sessions ran on (the page says it beside the results). */
  ranOn: BackendInfo | null;
  error: { name: string; message: string } | null;
}

/** The state a recovery run (`recover`) or a ladder climb starts from: running, nothing of the previous one kept. */
function runStart(mode: 'recover' | 'ladder'): Partial<RecoveryState> {
  return {
    status: 'running',
    mode,
    progress: null,
    curves: [],
    rungs: [],
    climb: null,
    error: null,
    startedAt: Date.now(),
    rungStartedAt: null,
    liveClimb: null,
    ladderSoFar: null,
    cancelling: false,
    ranOn: null,
  };
}

export interface RecoverySlice {
  recovery: RecoveryState;
  setRecoveryOptions(p: Partial<RecoveryOptions>): void;
  setLadderChoice(p: Partial<LadderChoice>): void;
  /** Quantizes with the switched-on algorithms (the page's settings and exclusions as the base). */
  recoverWithSettings(): Promise<void>;
  /** Climbs the ladder toward the target. */
  climbLadder(): Promise<void>;
  cancelRecovery(): void;
  dismissRecoveryError(): void;
  /** Makes a measured rung the run's result (download, evaluate). */
  useRung(handle: string): Promise<void>;
  /** The climb's report for the rung at `index` (default the chosen one); null without a climb. */
  ladderReport(index?: number): Promise<Report | null>;
  resetRecovery(): void;
}

export const DEFAULT_RECOVERY_OPTIONS: RecoveryOptions = {
  cle: false,
  attention: false,
  smoothQuant: false,
  smoothAlpha: 0.5,
  biasCorrection: false,
  finetune: 'adaround',
  iterations: 100,
  learningRate: null,
  sensitiveShare: null,
  adaquantStride: 1,
  mixedPrecision: false,
  budget: DEFAULT_PRECISION_BUDGET,
  mixedTarget: 0.99,
  mixedMetric: 'cosine',
};
export const DEFAULT_LADDER_CHOICE: LadderChoice = {
  metric: 'cosine',
  value: 0.99,
  allFormats: true,
  exclusions: true,
  npuBf16: false,
  aim: 'all',
  order: DEFAULT_LADDER_ORDER,
  timeBudgetMinutes: null,
};

/**
 * How long a cancelled climb may take to answer before the page shows it cancelled with the rungs it has (their models
 * and the climb's report stay in the worker, which a climb's cancel never ends).
 */
export const LADDER_CANCEL_GRACE_MS = 15_000;

export const initialRecoveryState: RecoveryState = {
  options: DEFAULT_RECOVERY_OPTIONS,
  ladder: DEFAULT_LADDER_CHOICE,
  status: 'idle',
  mode: null,
  progress: null,
  curves: [],
  rungs: [],
  climb: null,
  adopted: null,
  picking: null,
  startedAt: null,
  rungStartedAt: null,
  liveClimb: null,
  ladderSoFar: null,
  cancelling: false,
  ranOn: null,
  error: null,
};

/** The page's configuration with the recovery options set (validated: a bad learning rate is a ConfigError). */
export function recoveryConfig(base: QuantConfig, o: RecoveryOptions, forLadder = false): QuantConfig {
  const tuning = {
    algorithm: o.finetune === 'none' ? 'adaround' : o.finetune,
    iterations: o.iterations,
    learningRate: o.learningRate,
    smoothAlpha: o.smoothAlpha,
  } as const;
  // The ladder's rungs set the switches themselves.
  if (forLadder) return withRecoverySwitches(base, tuning);
  const config = withRecoverySwitches(base, {
    ...tuning,
    cle: o.cle,
    attention: o.attention,
    smoothQuant: o.smoothQuant,
    biasCorrection: o.biasCorrection,
    finetune: o.finetune !== 'none',
  });
  // The ladder strides its AdaQuant rungs itself (adaquantStride in the climb's request).
  return o.finetune === 'adaquant' ? adaquantStrided(config, o.adaquantStride) : config;
}

/**
 * A rung's handle once the worker that held its model stopped (a crash, out of memory): the new worker numbers its own
 * models from 1 again, so an old handle could name another model there. "Use this model" on such a rung rebuilds it from
 * its configuration in the new worker, calibrated as the climb calibrated it (quantizeWithRecovery.ts calibratedModel):
 * the same model, given the same samples.
 */
const LOST = 'lost:';
/** Whether a rung's model went with a stopped worker ("Use this model" rebuilds it). */
export const isLost = (handle: string) => handle.startsWith(LOST);
/** Errors after which the recovery worker is ended, with every model it held (remote/modelWorker.ts releases it). */
const LOSES_MODELS = new Set(['WorkerError', 'RuntimeError', 'UnknownHandleError']);
const lostRungs = (rungs: readonly RungSummary[]): RungSummary[] =>
  rungs.map((g) => (g.handle && !isLost(g.handle) ? { ...g, handle: `${LOST}${g.handle}` } : g));

/** The climb as the page knows it so far (its rungs from progress, the worker's handle): the best measured rung chosen. */
function climbSoFar(r: RecoveryState, stopped: LadderOutcome['stopped']): NonNullable<RecoveryState['climb']> {
  let chosen = -1;
  r.rungs.forEach((g, i) => {
    if (Number.isFinite(g.score) && (chosen < 0 || g.score > r.rungs[chosen].score)) chosen = i;
  });
  const met = r.rungs.findIndex((g) => g.met);
  return {
    handle: r.liveClimb!,
    stopped,
    chosen: met >= 0 ? met : chosen,
    target: { metric: r.ladder.metric, value: r.ladder.value },
    order: r.ladder.order,
    skippedRungs: [],
  };
}

type Needs = RecoverySlice & ModelSlice & CalibrationSlice & RunSlice & ExclusionSlice & EvaluationSlice;

export function createRecoverySlice<S extends Needs>(service: RecoveryService): StateCreator<S, [], [], RecoverySlice> {
  let latest = 0;

  return (set, get) => {
    const patch = (p: Partial<RecoveryState>) => set((s) => ({ recovery: { ...s.recovery, ...p } }) as Partial<S>);

    const onProgress = (request: number) => (p: RecoveryWorkerProgress) => {
      // Progress may arrive after the run's own answer (messages of two channels): a finished run ignores it.
      if (request !== latest || get().recovery.status !== 'running') return;
      const r = get().recovery;
      const live: Partial<RecoveryState> = {};
      if (p.ladder && p.ladder !== r.liveClimb) live.liveClimb = p.ladder;
      if (p.rung && p.rung.index !== r.progress?.rung?.index) live.rungStartedAt = Date.now();
      if (p.phase === 'rung-done' && p.finished) {
        const rungs = [...r.rungs.filter((x) => x.index !== p.finished!.index), p.finished].sort(
          (x, y) => x.index - y.index,
        );
        return patch({ ...live, progress: p, rungs, curves: [], ladderSoFar: p.ladderSoFar ?? r.ladderSoFar });
      }
      if (p.phase === 'layer' && p.layer && p.layer.lossBefore !== undefined && p.layer.lossAfter !== undefined) {
        const l = p.layer;
        // A layer tuned again within the rung (each step of the exclusion search fine-tunes its configuration anew)
        // starts a new pass: the curves are one pass's layers, each once.
        const pass = r.curves.some((c) => c.id === l.id) ? [] : r.curves;
        return patch({
          ...live,
          progress: p,
          curves: [
            ...pass,
            {
              id: l.id,
              lossBefore: l.lossBefore!,
              lossAfter: l.lossAfter!,
              kept: l.lossAfter! >= l.lossBefore!,
              curve: l.curve ?? [],
            },
          ],
        });
      }
      patch({ ...live, progress: p });
    };

    /** The request's common part, or a named error when something is missing. */
    const prepare = () => {
      const { model, calibration, run } = get();
      if (!model.handle) return null;
      if (run.settings.bf16) {
        patch({
          status: 'error',
          error: {
            name: 'Bf16PresetError',
            message:
              'The BF16 preset rounds every node to bfloat16 with no ranges: there is nothing to search or tune. Pick an integer preset (XINT8, A8W8, …) in step 2 first.',
          },
        });
        return null;
      }
      // The float model and a quantized candidate (at most as large: a rung may keep parts float) are open together in the worker.
      const floatBytes = Math.max(model.summary?.parameterBytes || 0, model.summary?.byteLength || 0);
      const tooLarge = heapShortfall('recovery and the ladder', [
        ['The float model', floatBytes],
        ['a quantized candidate of up to its size', floatBytes],
      ]);
      if (tooLarge) {
        patch({
          status: 'error',
          error: {
            name: 'ModelTooLargeError',
            message: `${tooLarge} Quantize it with the command line (npx qstudio quantize), which has no such ceiling.`,
          },
        });
        return null;
      }
      const samples = samplesOf(calibration);
      if (samples.length === 0) {
        patch({
          status: 'error',
          error: {
            name: 'NoRecoveryDataError',
            message:
              'No calibration images: add images in the calibration step first. Recovery calibrates, fine-tunes and measures on them.',
          },
        });
        return null;
      }
      const own = get().evaluation.source === 'own' ? evaluationSamples(get()).samples : [];
      return { modelHandle: model.handle, data: { samples, evaluationSamples: own, spec: calibration.spec } };
    };

    /**
     * An adopted rung's choices become the page's settings and picks too: a mixed-precision model's 16-bit tensors
     * as the settings' overrides, and whatever the rung kept float beyond the page's list (the nodes the
     * mixed-precision search kept float, the nodes and tail subgraphs the exclusion rung found) as exclusion
     * entries, so the exported config, the snippets and a new quantization reproduce it. (Before the model is
     * adopted: a changed exclusion list drops the run's result.)
     */
    const keepRungChoices = (config: QuantConfig, mixedPrecision: boolean) => {
      // Every rung starts from the page's overrides; a mixed-precision rung, or its fine-tuning, adds its own.
      get().setTensorOverrides(config.extraOptions.TensorQuantOverrides);
      const current = currentConfig(get());
      const listed = new Set<string>(current.nodesToExclude);
      const added = config.nodesToExclude.filter((id) => !listed.has(id));
      const by = mixedPrecision ? 'Mixed precision' : 'Ladder';
      if (added.length) get().addExclusion({ kind: 'nodes', name: `${by}: kept float`, nodes: added as NodeId[] });
      const subgraphKey = (g: { starts: readonly string[]; ends: readonly string[] }) =>
        JSON.stringify([g.starts, g.ends]);
      const listedSubgraphs = new Set(current.subgraphsToExclude.map(subgraphKey));
      config.subgraphsToExclude
        .filter((g) => !listedSubgraphs.has(subgraphKey(g)))
        .forEach((g, k) => {
          get().addExclusion({
            kind: 'subgraph',
            name: `${by}: kept float (subgraph ${k + 1})`,
            starts: g.starts as NodeId[],
            ends: g.ends as NodeId[],
          });
        });
    };

    const fail = (e: unknown) => {
      patch(failedRun(e, 'RecoveryCancelledError'));
    };

    return {
      recovery: initialRecoveryState,

      setRecoveryOptions(p) {
        const o = { ...get().recovery.options, ...p };
        if (!(Number.isInteger(o.iterations) && o.iterations >= 1)) return;
        if (o.learningRate !== null && !(o.learningRate > 0 && Number.isFinite(o.learningRate))) return;
        if (o.sensitiveShare !== null && !isSensitiveShare(o.sensitiveShare)) return;
        if (!isAdaquantStride(o.adaquantStride)) return;
        if (!(o.smoothAlpha >= 0 && o.smoothAlpha <= 1)) return;
        if (!Object.values(o.budget).every((v) => v >= 0 && v <= 1) || !(o.mixedTarget > -1 && o.mixedTarget <= 1))
          return;
        if (o.mixedMetric !== 'cosine' && !(TASK_LADDER_METRICS as readonly string[]).includes(o.mixedMetric)) return;
        patch({ options: o });
      },

      setLadderChoice(p) {
        const c = { ...get().recovery.ladder, ...p };
        if (
          !(LADDER_METRICS as readonly string[]).includes(c.metric) ||
          !Number.isFinite(c.value) ||
          !isLadderOrder(c.order)
        )
          return;
        if (c.timeBudgetMinutes !== null && !(c.timeBudgetMinutes > 0 && Number.isFinite(c.timeBudgetMinutes))) return;
        patch({ ladder: c });
      },

      async recoverWithSettings() {
        if (get().recovery.status === 'running') return;
        const base = prepare();
        if (!base) return;
        const request = ++latest;
        try {
          const options = get().recovery.options;
          const config = recoveryConfig(currentConfig(get()), options);
          const mixedPrecision = options.mixedPrecision
            ? { budget: options.budget, target: options.mixedTarget, metric: options.mixedMetric }
            : undefined;
          // A task target reads the boxes or masks through the page's task head (the worker names a missing one).
          const task =
            mixedPrecision && (TASK_LADDER_METRICS as readonly string[]).includes(options.mixedMetric)
              ? currentTaskHead(get())
              : null;
          patch(runStart('recover'));
          const out = await service.recover(
            base.modelHandle,
            {
              ...base.data,
              config,
              configName: get().run.settings.preset,
              mixedPrecision,
              task,
              sensitiveShare: options.sensitiveShare ?? undefined,
            },
            onProgress(request),
          );
          if (request !== latest) return;
          patch({
            status: 'done',
            progress: null,
            rungs: [out.rung],
            curves: out.rung.finetune?.layers ?? [],
            ranOn: out.ranOn,
          });
        } catch (e) {
          if (request === latest) fail(e);
        }
      },

      async climbLadder() {
        if (get().recovery.status === 'running') return;
        const base = prepare();
        if (!base) return;
        const request = ++latest;
        const { ladder, options } = get().recovery;
        try {
          const config = recoveryConfig(currentConfig(get()), options, true);
          const formats: PresetName[] | undefined = ladder.allFormats ? undefined : [get().run.settings.preset];
          patch(runStart('ladder'));
          const timeBudget = ladder.timeBudgetMinutes === null ? undefined : ladder.timeBudgetMinutes * 60;
          const out = await service.ladder(
            base.modelHandle,
            {
              ...base.data,
              config,
              target: `${ladder.metric}:${ladder.value}`,
              task: (TASK_LADDER_METRICS as readonly string[]).includes(ladder.metric) ? currentTaskHead(get()) : null,
              formats,
              perChannelRung: ladder.allFormats,
              exclusions: ladder.exclusions,
              npuBf16: ladder.npuBf16,
              aim: ladder.aim,
              order: ladder.order,
              timeBudget,
              sensitiveShare: options.sensitiveShare ?? undefined,
              adaquantStride: options.adaquantStride > 1 ? options.adaquantStride : undefined,
            },
            onProgress(request),
          );
          if (request !== latest) return;
          patch({
            status: out.stopped === 'cancelled' ? 'cancelled' : 'done',
            cancelling: false,
            progress: null,
            curves: [],
            rungs: out.rungs,
            climb: {
              handle: out.handle,
              stopped: out.stopped,
              chosen: out.chosen,
              target: out.target,
              order: out.order,
              skippedRungs: out.skippedRungs,
              shortfall: out.shortfall,
            },
            ranOn: out.ranOn,
          });
        } catch (e) {
          if (request !== latest) return;
          fail(e);
          // A climb that failed after measuring rungs still has them, and its report, in the worker: it reads as failed.
          const r = get().recovery;
          if (r.liveClimb && r.rungs.length > 0) patch({ climb: climbSoFar(r, 'failed') });
          // The worker stopped with the rungs' models: they are offered still, rebuilt when used.
          if (LOSES_MODELS.has((e as Error)?.name)) patch({ rungs: lostRungs(get().recovery.rungs) });
        }
      },

      cancelRecovery() {
        const r = get().recovery;
        if (r.status !== 'running' || r.cancelling) return;
        patch({ cancelling: true });
        service.cancel();
        // A single run ends with RecoveryCancelledError. A climb ends by itself with what it measured; if its answer is
        // slow (a long step), the page shows it cancelled with the rungs it has, which stay usable in the worker.
        if (r.mode !== 'ladder') return;
        const request = latest;
        setTimeout(() => {
          const now = get().recovery;
          if (request !== latest || now.status !== 'running') return;
          patch({
            status: 'cancelled',
            cancelling: false,
            progress: null,
            curves: [],
            climb: now.liveClimb ? climbSoFar(now, 'cancelled') : null,
          });
        }, LADDER_CANCEL_GRACE_MS);
      },

      dismissRecoveryError() {
        const r = get().recovery;
        if (r.status === 'error') patch({ status: r.rungs.length > 0 ? 'done' : 'idle', error: null });
      },

      async useRung(handle) {
        const { model, recovery } = get();
        const rung = recovery.rungs.find((r) => r.handle === handle);
        if (!model.handle || !model.fileName || !rung || recovery.picking) return;
        patch({ picking: handle, error: null });
        /** Quantizes the rung again from its configuration in the (new) worker; the handle of the model it made. */
        const rebuild = async (): Promise<string> => {
          const base = prepare();
          if (!base) throw new Error('the rung could not be rebuilt');
          const out = await service.recover(
            base.modelHandle,
            {
              ...base.data,
              config: validateConfig(JSON.parse(rung.config)),
              configName: rung.label,
              sensitiveShare: recovery.options.sensitiveShare ?? undefined,
            },
            () => undefined,
          );
          if (!out.rung.handle) throw new Error(out.rung.error ?? 'the rung could not be rebuilt');
          return out.rung.handle;
        };
        try {
          let held = isLost(handle) ? await rebuild() : handle;
          let picked: PickedModel;
          try {
            picked = await service.pick(model.handle, held);
          } catch (e) {
            // The worker stopped since the climb (its models went with it): every rung is rebuilt when used.
            if (held !== handle || !LOSES_MODELS.has((e as Error)?.name)) throw e;
            patch({ rungs: lostRungs(get().recovery.rungs), picking: `${LOST}${handle}` });
            held = await rebuild();
            picked = await service.pick(model.handle, held);
          }
          const config = validateConfig(JSON.parse(picked.config));
          const result: RunResult = {
            blob: new Blob([picked.bytes], { type: 'application/octet-stream' }),
            byteLength: picked.bytes.byteLength,
            report: picked.report,
            seconds: picked.seconds,
            fileName: quantizedFileName(model.fileName),
            settings: {
              preset: picked.preset ?? get().run.settings.preset,
              perChannel: config.perChannel,
              useRandomData: config.extraOptions.UseRandomData,
              tensorOverrides: config.extraOptions.TensorQuantOverrides,
            },
            config,
            configName: picked.label,
          };
          keepRungChoices(
            config,
            rung.mixedPrecision !== null || Object.keys(config.extraOptions.TensorQuantOverrides).length > 0,
          );
          get().adoptQuantized({
            ...result,
            adoptedUnder: { settings: get().run.settings, exclusions: get().exclusions.entries },
          });
          // A rebuilt rung's row holds its new model from now on.
          const rungs = get().recovery.rungs.map((g) =>
            g.index === rung.index && g.label === rung.label ? { ...g, handle: held } : g,
          );
          patch({ adopted: held, picking: null, rungs });
        } catch (e) {
          const error = toModelError(e, '');
          patch({ picking: null, error: { name: error.name, message: error.message } });
        }
      },

      async ladderReport(index) {
        const { model, recovery } = get();
        if (!model.handle || !recovery.climb) return null;
        const picked = index ?? recovery.climb.chosen;
        // The worker stopped since the climb and took it along: the report is written from what the page kept.
        const kept = () =>
          keptLadderReport({
            fileName: model.fileName ?? 'model.onnx',
            kept: recovery.ladderSoFar!,
            picked,
            rung: recovery.rungs.find((g) => g.index === recovery.ladderSoFar!.ladder.rungs[picked]?.index),
            error: recovery.error,
          });
        if (recovery.ladderSoFar && recovery.rungs.some((g) => g.handle && isLost(g.handle))) return kept();
        try {
          return await service.ladderReport(model.handle, recovery.climb.handle, picked);
        } catch (e) {
          if (!recovery.ladderSoFar || !LOSES_MODELS.has((e as Error)?.name)) throw e;
          patch({ rungs: lostRungs(get().recovery.rungs) });
          return kept();
        }
      },

      resetRecovery() {
        latest++;
        service.release();
        const { options, ladder } = get().recovery;
        patch({ ...initialRecoveryState, options, ladder });
      },
    };
  };
}
