/**
 * Nothing lost on a reload: the current model file (bytes and external-data files), the calibration and
 * evaluation data (File references), the preprocessing, the quantization settings, the exclusion entries
 * (the open model's, and those kept for other models opened this session), the choice to judge the model
 * as the NPU runs it (evaluation and search), the recovery card's settings (algorithms, budget, the
 * ladder's target and order) and the results (the calibration's ranges, the quantized model, its
 * evaluation) are kept in IndexedDB and restored when the page loads — the model reopened through the
 * store's own openModel, the data re-added through addCalibrationData — and "new session" clears them.
 * What cannot be kept (a ladder's rungs live in a worker) is named in the welcome-back note, as is what
 * could not be restored.
 *
 * Writes follow the store: debounced, queued one after another, never awaited by the UI. A failed write
 * (a full quota) becomes status.error for the page to show; it is never thrown. The storage and the
 * model worker's byte copy are injected, so tests drive this with an in-memory store and fakes.
 */
import { BF16_PRESET } from '../../core/quantize/bf16Preset.ts';
import type { PreprocessSpec } from '../../core/preprocess/spec.ts';
import type { PresetName as PreprocessPresetName } from '../../core/preprocess/presets.ts';
import type { ModelBytesCopy } from '../remote/workerTypes.ts';
import { sourceFromFiles } from '../store/modelSources.ts';
import type { StudioState, StudioStore } from '../store/createStudioStore.ts';
import type { CalibrationOutcome, NpySample } from '../store/calibrationSlice.ts';
import type { EvaluationOutcome, TaskChoice } from '../store/evaluationSlice.ts';
import { withoutId, type NewExclusion } from '../store/exclusionSlice.ts';
import type { RunResult } from '../store/runSlice.ts';
import { modelKey } from '../store/selectors.ts';
import type { QuantSettings } from '../store/quantSettings.ts';
import { DEFAULT_PRESET } from '../store/runSlice.ts';
import type { LadderChoice, RecoveryOptions } from '../store/recoverySlice.ts';
import type { KeyValueStore } from './idb.ts';

/** The records kept, by key. */
export interface SavedModel {
  file: File;
  externalFiles: File[];
}
export interface SavedData {
  images: File[];
  npy: NpySample[];
  /** The evaluation set of the user's own (absent in older records): its images, and its .npy samples. */
  evaluation?: File[];
  evaluationNpy?: NpySample[];
}
/** The results for one model; the evaluation's `quantized` is the run's very Blob when it judged it (one record keeps that). */
export interface SavedResults {
  version: 1;
  /** The model they were made on (selectors.ts modelKey). */
  model: string;
  calibration: CalibrationOutcome | null;
  run: RunResult | null;
  evaluation: EvaluationOutcome | null;
  /** What there was but could not be kept, in words. */
  notKept: string[];
}
export interface SavedChoices {
  version: 1;
  spec: PreprocessSpec;
  specPreset: PreprocessPresetName | 'custom';
  settings: QuantSettings;
  exclusions: NewExclusion[];
  /** Whether the evaluation also judges the model as the NPU runs it, and whether the search targets that figure (absent in older records: off). */
  npu?: { evaluation: boolean; suggest: boolean };
  /** The recovery card's settings (absent in older records: the defaults); restored through the store's own checks. */
  recovery?: { options: RecoveryOptions; ladder: LadderChoice };
  /** The exclusion lists of other models opened in the session, by model key (absent in older records). */
  picksByModel?: Record<string, NewExclusion[]>;
  /** The task head chosen per model key (absent in older records: the recognised heads). */
  taskByModel?: Record<string, TaskChoice>;
}

export interface SessionStatus {
  /** What a restore brought back, in words (shown once); null when nothing was restored. */
  restored: string | null;
  /** What the previous session had that did not come back, in words; null when everything did. */
  notKept: string | null;
  restoring: boolean;
  /** The last failed write or restore, with its error's name; null when all went well. */
  error: string | null;
}

export interface SessionDependencies {
  store: StudioStore;
  storage: () => Promise<KeyValueStore>;
  /** Copies of the open model's bytes (the page keeps none; the model worker has them). */
  modelBytes: (handle: string) => Promise<ModelBytesCopy>;
  /** Quiet time before choices and data are written, in ms. */
  delayMs?: number;
}

const describe = (e: unknown) => `${(e as Error)?.name || 'Error'}: ${(e as Error)?.message ?? String(e)}`;

export function createSessionPersistence({ store, storage, modelBytes, delayMs = 400 }: SessionDependencies) {
  let status: SessionStatus = { restored: null, notKept: null, restoring: false, error: null };
  const listeners = new Set<() => void>();
  const setStatus = (patch: Partial<SessionStatus>) => {
    status = { ...status, ...patch };
    listeners.forEach((l) => l());
  };

  let kv: Promise<KeyValueStore> | null = null;
  const db = () => (kv ??= storage());
  // Writes run one after another, in the order the store changed.
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (write: (kv: KeyValueStore) => Promise<void>) => {
    queue = queue.then(async () => {
      try {
        await write(await db());
      } catch (e) {
        setStatus({ error: `The session could not be saved (${describe(e)}). Your work on this page is unaffected.` });
      }
    });
    return queue;
  };

  // The handle whose bytes are already stored (the restored model): not written again.
  let storedHandle: string | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let unsubscribe: (() => void) | null = null;

  const worthKeeping = (s: StudioState) =>
    s.model.handle !== null ||
    s.calibration.images.length > 0 ||
    s.calibration.npy.length > 0 ||
    s.exclusions.entries.length > 0 ||
    s.evaluation.images.length > 0 ||
    s.evaluation.npy.length > 0;

  const writeChoicesAndData = () => {
    timer = null;
    const s = store.getState();
    if (!worthKeeping(s)) {
      void enqueue((kv) => kv.clear());
      return;
    }
    const choices: SavedChoices = {
      version: 1,
      spec: s.calibration.spec,
      specPreset: s.calibration.specPreset,
      settings: s.run.settings,
      exclusions: s.exclusions.entries.map(withoutId),
      npu: { evaluation: s.evaluation.npuBf16, suggest: s.evaluation.suggest.npuBf16 },
      recovery: { options: s.recovery.options, ladder: s.recovery.ladder },
      picksByModel: s.exclusions.byModel,
      taskByModel: s.evaluation.taskByModel,
    };
    const data: SavedData = {
      images: s.calibration.images,
      npy: s.calibration.npy,
      evaluation: s.evaluation.images,
      evaluationNpy: s.evaluation.npy,
    };
    void enqueue((kv) => kv.putAll({ choices, data }));
  };

  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(writeChoicesAndData, delayMs);
  };

  const writeModel = (handle: string) =>
    enqueue(async (kv) => {
      const copy = await modelBytes(handle);
      if (store.getState().model.handle !== handle) return; // another model since
      const saved: SavedModel = {
        file: new File([copy.bytes], copy.fileName),
        externalFiles: Object.entries(copy.externalFiles).map(([name, file]) =>
          file instanceof File && file.name === name ? file : new File([file], name),
        ),
      };
      await kv.putAll({ model: saved });
      storedHandle = handle;
    });

  /** What there is now that a record cannot hold, in words. */
  const notKeptNow = (s: StudioState): string[] => {
    const out: string[] = [];
    const rungs = s.recovery.rungs.length;
    if (rungs > 0)
      out.push(
        `the ${rungs === 1 ? 'recovery run' : `ladder's ${rungs} measured rungs`} (${rungs === 1 ? 'its model lives' : 'their models live'} in this tab's worker; a rung you chose with "Use this model" is kept as the quantized model)`,
      );
    if (s.evaluation.suggest.outcome)
      out.push("the exclusion search's measured steps (search again, or keep what it found with Accept)");
    return out;
  };

  const writeResults = () => {
    const s = store.getState();
    const key = modelKey(s.model.summary);
    if (!key) return;
    const run = s.run.result ? (({ adoptedUnder: _adopted, ...rest }) => rest)(s.run.result) : null;
    const results: SavedResults = {
      version: 1,
      model: key,
      calibration: s.calibration.result,
      run,
      evaluation: run ? s.evaluation.result : null,
      notKept: notKeptNow(s),
    };
    void enqueue(async (kv) => {
      try {
        await kv.putAll({ results });
      } catch (e) {
        // A result the browser cannot store (structured clone): say so on the next visit rather than fail.
        await kv.putAll({
          results: {
            version: 1,
            model: key,
            calibration: null,
            run: null,
            evaluation: null,
            notKept: [`the results (${describe(e)})`],
          } satisfies SavedResults,
        });
      }
    });
  };

  const onChange = (s: StudioState, p: StudioState) => {
    if (
      s.calibration.result !== p.calibration.result ||
      s.run.result !== p.run.result ||
      s.evaluation.result !== p.evaluation.result ||
      s.recovery.rungs !== p.recovery.rungs ||
      s.evaluation.suggest.outcome !== p.evaluation.suggest.outcome
    ) {
      if (s.model.handle !== null && s.model.handle === p.model.handle) writeResults();
    }
    if (s.model.handle !== p.model.handle) {
      // Another model (or none): the results were the old one's.
      void enqueue((kv) => kv.delete('results'));
      if (s.model.handle === null) void enqueue((kv) => kv.delete('model'));
      else if (s.model.handle !== storedHandle) void writeModel(s.model.handle);
    }
    const c = s.calibration;
    const pc = p.calibration;
    if (
      c.images !== pc.images ||
      c.npy !== pc.npy ||
      c.spec !== pc.spec ||
      s.run.settings !== p.run.settings ||
      s.exclusions.entries !== p.exclusions.entries ||
      s.model.handle !== p.model.handle ||
      s.evaluation.npuBf16 !== p.evaluation.npuBf16 ||
      s.evaluation.suggest.npuBf16 !== p.evaluation.suggest.npuBf16 ||
      s.recovery.options !== p.recovery.options ||
      s.recovery.ladder !== p.recovery.ladder ||
      s.evaluation.images !== p.evaluation.images ||
      s.evaluation.npy !== p.evaluation.npy ||
      s.exclusions.byModel !== p.exclusions.byModel ||
      s.evaluation.taskByModel !== p.evaluation.taskByModel
    ) {
      schedule();
    }
  };

  return {
    getStatus: () => status,
    subscribeStatus(listener: () => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** Restores a saved session (if any), then follows the store. Call once. */
    async start(): Promise<void> {
      setStatus({ restoring: true });
      try {
        await restore();
      } catch (e) {
        setStatus({ error: `The previous session could not be restored (${describe(e)}).` });
      } finally {
        setStatus({ restoring: false });
        unsubscribe = store.subscribe(onChange);
      }
    },

    /** Forgets the saved session and empties the page. */
    async newSession(): Promise<void> {
      if (timer) clearTimeout(timer);
      timer = null;
      unsubscribe?.();
      const s = store.getState();
      s.closeModel();
      s.clearCalibrationData();
      s.clearEvaluationData();
      s.setQuantPreset(DEFAULT_PRESET);
      s.replaceExclusions([]);
      s.setExclusionsByModel({});
      storedHandle = null;
      setStatus({ restored: null, notKept: null, error: null });
      await enqueue((kv) => kv.clear());
      unsubscribe = store.subscribe(onChange);
    },

    dismissNote() {
      setStatus({ restored: null, notKept: null, error: null });
    },

    /** Writes what is pending now (tests; a page about to hide). */
    async flush(): Promise<void> {
      if (timer) {
        clearTimeout(timer);
        writeChoicesAndData();
      }
      await queue;
    },
  };

  async function restore(): Promise<void> {
    const kv = await db();
    const [model, data, choices, results] = await Promise.all([
      kv.get<SavedModel>('model'),
      kv.get<SavedData>('data'),
      kv.get<SavedChoices>('choices'),
      kv.get<SavedResults>('results'),
    ]);
    if (!model && !data && !choices) return;
    const said: string[] = [];
    const lost: string[] = [];
    let opened: string | null = null;
    if (model) {
      const source = sourceFromFiles([model.file, ...model.externalFiles]);
      if (source) await store.getState().openModel(source);
      const now = store.getState().model;
      if (now.handle && now.fileName === model.file.name) {
        storedHandle = now.handle;
        opened = model.file.name;
      } else {
        lost.push(
          `the model ${model.file.name} (${now.error ? `${now.error.name}: ${now.error.message}` : 'it did not open'})`,
        );
      }
    }
    const s = store.getState();
    if (choices?.version === 1) {
      s.setPreprocess(choices.spec, choices.specPreset);
      s.setQuantPreset(choices.settings.preset);
      s.setPerChannel(choices.settings.perChannel);
      s.setCalibrationMethod(choices.settings.calibrationMethod ?? null);
      s.setSaturationSafeWeights(choices.settings.saturationSafeWeights === true);
      s.setEnableSubgraph(choices.settings.enableSubgraph === true);
      s.setUseRandomData(choices.settings.useRandomData);
      s.setTensorOverrides(choices.settings.tensorOverrides ?? {});
      if (choices.settings.bf16) s.setQuantPreset(BF16_PRESET);
      if (choices.npu) {
        s.setEvaluationNpuBf16(choices.npu.evaluation);
        s.setSuggestNpuBf16(choices.npu.suggest);
      }
      if (choices.recovery) {
        s.setRecoveryOptions(choices.recovery.options);
        s.setLadderChoice(choices.recovery.ladder);
      }
      // Picks name the saved model's nodes: only onto that model (the user may have dropped another meanwhile).
      if (s.model.handle && s.model.handle === storedHandle && choices.exclusions.length) {
        s.replaceExclusions(choices.exclusions);
        said.push(`${choices.exclusions.length} exclusion${choices.exclusions.length === 1 ? '' : 's'}`);
      } else if (choices.exclusions.length) {
        lost.push(
          `${choices.exclusions.length} exclusion${choices.exclusions.length === 1 ? '' : 's'} (their model did not open)`,
        );
      }
      if (choices.picksByModel) {
        const others = Object.keys(choices.picksByModel).filter((k) => k !== modelKey(s.model.summary));
        s.setExclusionsByModel(Object.fromEntries(others.map((k) => [k, choices.picksByModel![k]])));
        if (others.length)
          said.push(
            `the exclusions of ${others.length} other model${others.length === 1 ? '' : 's'} (back when ${others.length === 1 ? 'it is' : 'they are'} reopened)`,
          );
      }
    }
    if (choices?.taskByModel && Object.keys(choices.taskByModel).length) {
      s.setTaskByModel(choices.taskByModel);
      const mine = choices.taskByModel[modelKey(s.model.summary) ?? ''];
      if (mine) said.push(mine === 'none' ? 'no task judged (your choice)' : `the task head you chose (${mine.task})`);
    }
    const images = data?.images ?? [];
    const npy = data?.npy ?? [];
    if (images.length || npy.length) {
      s.addCalibrationData({ images, npy });
      if (images.length) said.push(`${images.length} calibration image${images.length === 1 ? '' : 's'}`);
      if (npy.length) said.push(`${npy.length} .npy sample${npy.length === 1 ? '' : 's'}`);
    }
    const evaluation = data?.evaluation ?? [];
    const evaluationNpy = data?.evaluationNpy ?? [];
    if (evaluation.length || evaluationNpy.length) {
      s.addEvaluationData({ images: evaluation, npy: evaluationNpy });
      if (evaluation.length) said.push(`${evaluation.length} evaluation image${evaluation.length === 1 ? '' : 's'}`);
      if (evaluationNpy.length)
        said.push(`${evaluationNpy.length} evaluation .npy sample${evaluationNpy.length === 1 ? '' : 's'}`);
    }
    if (results?.version === 1) {
      const made = [
        results.calibration && 'the calibration',
        results.run && 'the quantized model',
        results.evaluation && 'the evaluation',
      ].filter((x): x is string => !!x);
      if (results.model === modelKey(store.getState().model.summary)) {
        if (made.length)
          store
            .getState()
            .restoreResults({ calibration: results.calibration, run: results.run, evaluation: results.evaluation });
        said.push(
          ...made.map((m) => (m === 'the quantized model' && results.run ? `${m} (${results.run.configName})` : m)),
        );
      } else if (made.length) {
        lost.push(`${made.join(', ')} (made on a model that is not open)`);
      }
      lost.push(...results.notKept);
    }
    if (opened || said.length)
      setStatus({
        restored: `Restored your previous session${opened ? ` with ${opened}` : ''}${said.length ? `: ${said.join(', ')}` : ''}, and its settings.`,
      });
    if (lost.length) setStatus({ notKept: `Not kept: ${lost.join('; ')}.` });
  }
}

export type SessionPersistence = ReturnType<typeof createSessionPersistence>;
