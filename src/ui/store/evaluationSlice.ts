/**
 * The evaluation slice: judging the quantized model against the float one, and the "suggest
 * exclusions" search. It holds what the user chose (evaluate on the calibration images or on an
 * evaluation set of their own, the target cosine), the state of each run (progress, cancel, named
 * errors) and the results the page shows and downloads: the core's Report (one source for the page,
 * the HTML and the JSON), the per-node SQNR it also lays over the graph (setGraphHeat), and the
 * search's measured steps, which "accept" turns into exclusion entries (addExclusion).
 *
 * It talks to the evaluation worker only through the EvaluationService it is given (tests pass a
 * fake). A result remembers the quantized model it judged (`quantized`), so the page can say when a
 * newer quantization makes it stale instead of dropping it: nothing the user did is lost.
 */
import type { GraphOptimization } from '../../core/runtime/graphOptimization.ts';
import { heapShortfall } from '../../core/runtime/wasmHeap.ts';
import { StudioError } from '../../core/onnx/errors.ts';
import type { StateCreator } from 'zustand';
import type { NodeId } from '../../core/onnx/model.ts';
import { configToPlainJson } from '../../core/quantize/config.ts';
import { nodePrecisions } from '../../core/quantize/precisionClasses.ts';
import type {
  EvaluationLabels,
  EvaluationProgress,
  EvaluationRequest,
  EvaluationResult,
  ParityRequest,
  ParityResult,
  ReportContext,
  SuggestOutcome,
  SuggestRequest,
} from '../remote/workerTypes.ts';
import type { CalibrationOutcome, CalibrationSlice, DataRejection, NpySample } from './calibrationSlice.ts';
import type { ExclusionSlice } from './exclusionSlice.ts';
import type { GraphSlice } from './graphSlice.ts';
import { toModelError, type ModelSlice } from './modelSlice.ts';
import { comparisonInputs, type RunResult, type RunSlice } from './runSlice.ts';
import { appendNew, evaluationSamples, fileKey } from './samples.ts';
import { currentConfig, currentTaskHead, headSuggestion, modelKey, rangesAreCurrent } from './selectors.ts';
import { LADDER_METRICS, TASK_LADDER_METRICS, type LadderMetric } from '../../core/recovery/ladder.ts';
import { headlineFigures, type ReadMetric } from '../../core/report/reading.ts';
import type { ReportTask, TaskHead } from '../../core/task/index.ts';
import { failedRun, notQuantized } from './failedRun.ts';

export type { EvaluationProgress, EvaluationResult, SuggestOutcome } from '../remote/workerTypes.ts';

/** What the slice needs from the evaluation worker (src/ui/remote implements it). */
export interface EvaluationService {
  /** Compares the quantized model of the request with the float model the model worker holds under `modelHandle`. */
  evaluate(
    modelHandle: string,
    request: EvaluationRequest,
    onProgress: (p: EvaluationProgress) => void,
  ): Promise<EvaluationResult>;
  /** Runs the measured greedy search for exclusions. */
  suggest(
    modelHandle: string,
    request: SuggestRequest,
    onProgress: (p: EvaluationProgress) => void,
  ): Promise<SuggestOutcome>;
  /** Runs the float and the quantized model on every runtime the browser has (core/evaluate/parity.ts). */
  parity?(
    modelHandle: string,
    request: ParityRequest,
    onProgress: (p: EvaluationProgress) => void,
  ): Promise<ParityResult>;
  /** The last evaluation's task figures read through another head (no model run); null without image samples. */
  judgeTask?(modelHandle: string, head: TaskHead): Promise<ReportTask | null>;
  /** Stops the running evaluation or search (its promise then rejects with EvaluationCancelledError). */
  cancel(): void;
  /** Ends the evaluation worker: its memory is only returned then. */
  release(): void;
}

export type EvaluationStatus = 'idle' | 'running' | 'done' | 'cancelled' | 'error';

export interface EvaluationError {
  name: string;
  message: string;
}

/** Where the samples come from: the calibration's data (default), or a set dropped for evaluation. */
export type EvaluationSource = 'calibration' | 'own';

/** A finished evaluation, with what it judged. */
export interface EvaluationOutcome extends EvaluationResult {
  /** The quantized model judged (the run slice's Blob): when the run's differs, the result is stale. */
  quantized: Blob;
  /** What was judged, in words ("XINT8, 1 exclusion"); absent in results kept by older pages. */
  label?: string;
}

/** The evaluation before the current one (the same model), to read the change from. */
export interface PreviousEvaluation {
  figures: Record<ReadMetric, number | null>;
  label: string;
}

export interface SuggestState {
  /** What the target measures: the output cosine (default), another output metric, or a task figure. */
  metric: LadderMetric;
  /** The figure to reach (an output cosine by default). */
  target: number;
  /** Most measurements after the starting one. */
  maxSteps: number;
  status: EvaluationStatus;
  progress: EvaluationProgress | null;
  /** The steps measured so far (live while the search runs). */
  steps: SuggestOutcome['steps'];
  outcome: SuggestOutcome | null;
  error: EvaluationError | null;
  /** Ids of the exclusion entries made by "accept", once accepted. */
  accepted: string[] | null;
  /** Meet the target as the NPU runs the model (float parts in BF16, the CLI's --npu-bf16); default off. */
  npuBf16: boolean;
  /** The onnxruntime level the target is judged at: onnxruntime-web's default ('all', the default) or 'basic'. */
  aim: GraphOptimization;
}

export interface EvaluationState {
  source: EvaluationSource;
  /** The evaluation set of the user's own (used when `source` is 'own'): images and .npy samples. */
  images: File[];
  npy: NpySample[];
  rejected: DataRejection[];
  /** Compare every intermediate tensor too (the per-layer table, chart and graph heat); default on. */
  layers: boolean;
  /** Also judge the model as the NPU runs it (float parts in BF16): a second figure, labelled; default off. */
  npuBf16: boolean;
  status: EvaluationStatus;
  progress: EvaluationProgress | null;
  result: EvaluationOutcome | null;
  /** The result the current one replaced (null for a model's first evaluation). */
  previous: PreviousEvaluation | null;
  error: EvaluationError | null;
  suggest: SuggestState;
  /**
   * The task head chosen per model (modelKey): a head the user accepted or changed, or 'none' (judge no task).
   * A model without an entry is judged with the head recognised from it, if any.
   */
  taskByModel: Record<string, TaskChoice>;
  /** The task figures are being read again through a changed head. */
  taskJudging: boolean;
  /** Why the chosen head could not be read on the last evaluation's outputs (TaskHeadError), or the labels do not fit (TaskLabelError). */
  taskError: EvaluationError | null;
  /**
   * The labels for the evaluation images, as the user gave them (one file, several, or a folder's files by their
   * relative paths), read by the worker through the core's one reader (core/task/labelSource.ts).
   */
  labels: EvaluationLabels | null;
  /** The labels cleared when another model opened (their name), said once beside the labels drop. */
  labelsCleared: string | null;
}

/** A head the user chose, or no task judged. */
export type TaskChoice = TaskHead | 'none';

export interface EvaluationSlice {
  evaluation: EvaluationState;
  setEvaluationSource(source: EvaluationSource): void;
  /** The labels the next evaluation judges the task against (null or no files: none). */
  setEvaluationLabels(labels: EvaluationLabels | null): void;
  /**
   * Adds images and .npy samples to the own evaluation set (and switches to it); duplicates (an image by name and
   * size, a sample by name) are dropped.
   */
  addEvaluationData(data: { images?: File[]; npy?: NpySample[]; rejected?: DataRejection[] }): void;
  clearEvaluationData(): void;
  setEvaluationLayers(layers: boolean): void;
  setEvaluationNpuBf16(npuBf16: boolean): void;
  setSuggestNpuBf16(npuBf16: boolean): void;
  setSuggestAim(aim: GraphOptimization): void;
  /** Compares the current quantized model with the float model on the chosen samples. */
  evaluate(): Promise<void>;
  /** The next step a result suggests, in one click: keep `node` float, quantize again and evaluate again. */
  keepFloatAndRetry(node: string, why: string): Promise<void>;
  cancelEvaluation(): void;
  dismissEvaluationError(): void;
  setSuggestTarget(target: number): void;
  /** The target's metric, its value reset to the metric's usual start. */
  setSuggestMetric(metric: LadderMetric, target: number): void;
  setSuggestMaxSteps(steps: number): void;
  /** Searches for exclusions reaching the target, from the current settings and exclusions. */
  suggestExclusions(): Promise<void>;
  cancelSuggestion(): void;
  dismissSuggestionError(): void;
  /** Adds what the search found as exclusion entries (one for the nodes, one per subgraph). */
  acceptSuggestion(): void;
  /**
   * The task head of the model open now: a head (accepted or changed), 'none', or null (back to the recognised
   * suggestion). A finished evaluation's task figures are read again through it at once (no model run).
   */
  chooseTaskHead(choice: TaskChoice | null): Promise<void>;
  setTaskByModel(byModel: Record<string, TaskChoice>): void;
  /** A new model: no results, worker ended (the user's evaluation images are kept). */
  resetEvaluation(): void;
  /**
   * Results kept from an earlier visit, for the model open now (a session restore): the calibration, the
   * quantized model and its evaluation (with its heat over the graph), as if just made.
   */
  restoreResults(results: {
    calibration: CalibrationOutcome | null;
    run: RunResult | null;
    evaluation: EvaluationOutcome | null;
  }): void;
}

/** Nothing to compare yet: quantize first. */
export class NotQuantizedError extends StudioError {
  override readonly name = 'NotQuantizedError';
}

export const DEFAULT_TARGET_COSINE = 0.99;
export const DEFAULT_SUGGEST_STEPS = 8;

const initialSuggest: SuggestState = {
  metric: 'cosine',
  target: DEFAULT_TARGET_COSINE,
  maxSteps: DEFAULT_SUGGEST_STEPS,
  status: 'idle',
  progress: null,
  steps: [],
  outcome: null,
  error: null,
  accepted: null,
  npuBf16: false,
  aim: 'all',
};

export const initialEvaluationState: EvaluationState = {
  source: 'calibration',
  images: [],
  npy: [],
  rejected: [],
  layers: true,
  npuBf16: false,
  status: 'idle',
  progress: null,
  result: null,
  previous: null,
  error: null,
  suggest: initialSuggest,
  taskByModel: {},
  taskJudging: false,
  taskError: null,
  labels: null,
  labelsCleared: null,
};

type Needs = EvaluationSlice & ModelSlice & CalibrationSlice & RunSlice & ExclusionSlice & GraphSlice;

export function createEvaluationSlice<S extends Needs>(
  service: EvaluationService,
): StateCreator<S, [], [], EvaluationSlice> {
  // Each run gets a number; a cancelled or superseded run may not change the state any more.
  let latest = 0;

  return (set, get) => {
    const patch = (p: Partial<EvaluationState>) =>
      set((s) => ({ evaluation: { ...s.evaluation, ...p } }) as Partial<S>);
    const patchSuggest = (p: Partial<SuggestState>) =>
      set((s) => ({ evaluation: { ...s.evaluation, suggest: { ...s.evaluation.suggest, ...p } } }) as Partial<S>);
    const busy = () => get().evaluation.status === 'running' || get().evaluation.suggest.status === 'running';
    /** The per-node SQNR of an evaluation laid over the graph. */
    const showHeat = (result: EvaluationResult) => {
      if (Object.keys(result.nodeSqnr).length > 0)
        get().setGraphHeat({ label: 'SQNR (dB)', higherIsBetter: true, values: result.nodeSqnr });
    };

    /** The head the user chose for the model open now (undefined: the recognised one). */
    const chosenTask = (): TaskChoice | undefined => {
      const key = modelKey(get().model.summary);
      return key ? get().evaluation.taskByModel[key] : undefined;
    };
    let judging = 0;

    /** The report's context: the configuration, exclusions, quantization, ranges and earlier timings. */
    const reportContext = (dataSource: string): ReportContext => {
      const { run, calibration } = get();
      const result = run.result!;
      return {
        config: {
          name: result.configName,
          settings: result.config
            ? configToPlainJson(result.config)
            : { preset: result.configName, extraOptions: { BF16QDQToCast: true } },
        },
        exclusions: result.report.exclusions.map((x) => ({ rule: x.rule, ids: [...x.ids] })),
        quantization: {
          nodes: result.report.counts.nodes,
          quantized: result.report.counts.quantized,
          float: result.report.counts.float,
        },
        precisions: nodePrecisions(result.report),
        dataSource,
        ranges: calibration.result?.ranges,
        timings: [
          ...(calibration.result ? [{ label: 'calibration', seconds: calibration.result.seconds }] : []),
          { label: 'quantization', seconds: result.seconds },
        ],
      };
    };

    return {
      evaluation: initialEvaluationState,

      setEvaluationSource(source) {
        patch({ source });
      },

      setEvaluationLabels(labels) {
        patch({ labels: labels?.files.length ? labels : null, labelsCleared: null, taskError: null });
      },

      addEvaluationData({ images = [], npy = [], rejected = [] }) {
        const e = get().evaluation;
        const all = { images: appendNew(e.images, images, fileKey), npy: appendNew(e.npy, npy, (x) => x.name) };
        const any = all.images.length + all.npy.length > 0;
        patch({ ...all, rejected, source: any ? 'own' : e.source });
      },

      clearEvaluationData() {
        patch({ images: [], npy: [], rejected: [], source: 'calibration' });
      },

      setEvaluationLayers(layers) {
        patch({ layers });
      },

      setEvaluationNpuBf16(npuBf16) {
        patch({ npuBf16 });
      },

      setSuggestAim(aim) {
        patchSuggest({ aim });
      },
      setSuggestNpuBf16(npuBf16) {
        patchSuggest({ npuBf16 });
      },

      async evaluate() {
        const { model, run } = get();
        if (!model.handle || busy()) return;
        const request = ++latest;
        const quantized = run.result;
        if (!quantized) {
          patch(notQuantized('evaluation compares the quantized model with the float one.'));
          return;
        }
        // Both models' sessions are open together in the evaluation worker: refuse before starting what cannot fit.
        const floatBytes = Math.max(model.summary?.parameterBytes || 0, model.summary?.byteLength || 0);
        const quantBytes = quantized.byteLength + (quantized.data?.byteLength ?? 0);
        const tooLarge = heapShortfall('the evaluation', [
          ['The float model', floatBytes],
          ['the quantized model', quantBytes],
        ]);
        if (tooLarge) {
          patch({ status: 'error', error: { name: 'ModelTooLargeError', message: tooLarge } });
          return;
        }
        const { samples, source } = evaluationSamples(get());
        if (samples.length === 0) {
          const where =
            get().evaluation.source === 'own'
              ? 'Drop evaluation images, or use the calibration images.'
              : 'The calibration has no images or tensors (random data): drop evaluation images.';
          patch({ status: 'error', error: { name: 'NoEvaluationDataError', message: `No evaluation data. ${where}` } });
          return;
        }
        patch({ status: 'running', progress: null, error: null });
        // Progress comes through its own message port: a last report may arrive after the answer.
        let answered = false;
        try {
          const result = await service.evaluate(
            model.handle,
            {
              ...comparisonInputs(quantized, samples, get()),
              layers: get().evaluation.layers,
              npuBf16: get().evaluation.npuBf16,
              task: chosenTask() ?? 'auto',
              labels: get().evaluation.labels ?? undefined,
              report: reportContext(source),
            },
            (progress) => {
              if (request === latest && !answered) patch({ progress });
            },
          );
          answered = true;
          if (request !== latest) return;
          const before = get().evaluation.result;
          const entries = get().exclusions.entries.length;
          const label = `${quantized.configName}${entries ? `, ${entries} exclusion${entries === 1 ? '' : 's'}` : ''}`;
          patch({
            status: 'done',
            progress: null,
            result: { ...result, quantized: quantized.blob, label },
            taskError: result.taskError ?? null,
            previous: before
              ? { figures: headlineFigures(before.report), label: before.label ?? 'the previous quantization' }
              : get().evaluation.previous,
          });
          showHeat(result);
        } catch (e) {
          if (request !== latest) return;
          patch(failedRun(e, 'EvaluationCancelledError'));
        }
      },

      async keepFloatAndRetry(node, why) {
        if (busy()) return;
        get().addExclusion({ kind: 'nodes', name: `${node} (${why})`, nodes: [node as NodeId] });
        await get().quantize();
        if (get().run.status !== 'done' || !get().run.result) return;
        await get().evaluate();
      },

      cancelEvaluation() {
        if (get().evaluation.status !== 'running') return;
        latest++;
        service.cancel();
        patch({ status: 'cancelled', progress: null });
      },

      dismissEvaluationError() {
        const e = get().evaluation;
        if (e.status === 'error') patch({ status: e.result ? 'done' : 'idle', error: null });
      },

      setSuggestTarget(target) {
        if (Number.isFinite(target)) patchSuggest({ target });
      },

      setSuggestMetric(metric, target) {
        if ((LADDER_METRICS as readonly string[]).includes(metric) && Number.isFinite(target))
          patchSuggest({ metric, target });
      },

      setSuggestMaxSteps(steps) {
        if (Number.isInteger(steps) && steps >= 1) patchSuggest({ maxSteps: steps });
      },

      async suggestExclusions() {
        const { model, run, calibration, evaluation } = get();
        if (!model.handle || busy()) return;
        const request = ++latest;
        const { metric, target, maxSteps, npuBf16, aim } = evaluation.suggest;
        const fail = (name: string, message: string) => patchSuggest({ status: 'error', error: { name, message } });
        if (metric === 'cosine' && !(target > -1 && target <= 1))
          return fail('ConfigError', `Target cosine ${target}: give a value above −1 and at most 1.`);
        const taskTarget = (TASK_LADDER_METRICS as readonly string[]).includes(metric);
        const task = taskTarget ? currentTaskHead(get()) : null;
        if (taskTarget && !task)
          return fail(
            'LadderTargetError',
            `A ${metric} target is a task figure: choose the task head first (step 6, "Task judged"); the model's head was not recognised or "no task" is chosen.`,
          );
        if (run.settings.bf16)
          return fail(
            'Bf16PresetError',
            'The BF16 preset rounds every node to bfloat16 with no ranges: there is nothing to search or tune. Pick an integer preset (XINT8, A8W8, …) in step 2 first.',
          );
        const config = currentConfig(get());
        if (!calibration.result || !rangesAreCurrent(get())) {
          return fail(
            'NotCalibratedError',
            'Calibrate with the current settings first: the search re-quantizes with the calibrated ranges.',
          );
        }
        const { samples } = evaluationSamples(get());
        if (samples.length === 0)
          return fail('NoEvaluationDataError', 'No evaluation data: drop evaluation images, or calibrate on images.');
        patchSuggest({ status: 'running', progress: null, steps: [], outcome: null, error: null, accepted: null });
        let answered = false; // as in evaluate(): late progress is ignored
        try {
          const outcome = await service.suggest(
            model.handle,
            {
              samples,
              spec: calibration.spec,
              ranges: calibration.result.ranges,
              config,
              configName: run.settings.preset,
              target,
              metric,
              task,
              maxSteps,
              npuBf16,
              aim,
            },
            (progress) => {
              if (request !== latest || answered) return;
              const steps = get().evaluation.suggest.steps;
              const next =
                progress.measured && progress.measured.step === steps.length
                  ? { steps: [...steps, progress.measured] }
                  : {};
              patchSuggest({ progress, ...next });
            },
          );
          answered = true;
          if (request !== latest) return;
          patchSuggest({ status: 'done', progress: null, steps: outcome.steps, outcome });
        } catch (e) {
          if (request !== latest) return;
          patchSuggest(failedRun(e, 'EvaluationCancelledError'));
        }
      },

      cancelSuggestion() {
        if (get().evaluation.suggest.status !== 'running') return;
        latest++;
        service.cancel();
        patchSuggest({ status: 'cancelled', progress: null });
      },

      dismissSuggestionError() {
        const s = get().evaluation.suggest;
        if (s.status === 'error') patchSuggest({ status: s.outcome ? 'done' : 'idle', error: null });
      },

      acceptSuggestion() {
        const s = get().evaluation.suggest;
        if (!s.outcome || s.accepted) return;
        const { nodes, subgraphs } = s.outcome.added;
        const ids: string[] = [];
        const cos = s.outcome.cosine.toFixed(4);
        if (nodes.length > 0)
          ids.push(
            get().addExclusion({
              kind: 'nodes',
              name: `Suggested (cosine ${cos}): ${nodes.length} node${nodes.length === 1 ? '' : 's'}`,
              nodes: nodes as NodeId[],
            }),
          );
        for (const g of subgraphs) {
          ids.push(
            get().addExclusion({
              kind: 'subgraph',
              name: `Suggested tail from ${g.starts.join(', ')}`,
              starts: g.starts as NodeId[],
              ends: g.ends as NodeId[],
            }),
          );
        }
        patchSuggest({ accepted: ids });
      },

      async chooseTaskHead(choice) {
        const key = modelKey(get().model.summary);
        if (!key) return;
        const byModel = { ...get().evaluation.taskByModel };
        if (choice === null) delete byModel[key];
        else byModel[key] = choice;
        patch({ taskByModel: byModel, taskError: null });
        const { result, status } = get().evaluation;
        const handle = get().model.handle;
        if (!result || status === 'running' || !handle) return;
        // Back to the suggestion (choice null): the figures read through the recognised head again, none if none is.
        const head = choice ?? headSuggestion(get().model.summary)?.head ?? 'none';
        if (head === 'none') {
          patch({ result: { ...result, report: { ...result.report, task: null } } });
          return;
        }
        if (!service.judgeTask) return;
        const mine = ++judging;
        patch({ taskJudging: true });
        try {
          const task = await service.judgeTask(handle, head);
          if (mine !== judging || get().evaluation.result !== result) return;
          patch({ taskJudging: false, result: { ...result, report: { ...result.report, task } } });
        } catch (e) {
          if (mine !== judging) return;
          const error = toModelError(e, '');
          patch({ taskJudging: false, taskError: { name: error.name, message: error.message } });
        }
      },

      setTaskByModel(byModel) {
        patch({ taskByModel: { ...byModel } });
      },

      restoreResults({ calibration, run, evaluation }) {
        set(
          (s) =>
            ({
              calibration: calibration
                ? { ...s.calibration, status: 'done', result: calibration, error: null }
                : s.calibration,
              run: run ? { ...s.run, status: 'done', result: run, error: null } : s.run,
              evaluation:
                evaluation && run ? { ...s.evaluation, status: 'done', result: evaluation, error: null } : s.evaluation,
            }) as Partial<S>,
        );
        if (evaluation && run) showHeat(evaluation);
      },

      resetEvaluation() {
        latest++;
        service.release();
        judging++;
        patch({
          status: 'idle',
          progress: null,
          result: null,
          previous: null,
          error: null,
          taskJudging: false,
          taskError: null,
          // Labels name the images of one model's data: another model starts without them, and says so.
          labels: null,
          labelsCleared: get().evaluation.labels?.name ?? get().evaluation.labelsCleared,
          suggest: {
            ...initialSuggest,
            metric: get().evaluation.suggest.metric,
            target: get().evaluation.suggest.target,
            maxSteps: get().evaluation.suggest.maxSteps,
            npuBf16: get().evaluation.suggest.npuBf16,
            aim: get().evaluation.suggest.aim,
          },
        });
      },
    };
  };
}
