/**
 * Nothing lost on a reload: the current model file (bytes and external-data files), the calibration
 * data (File references), the preprocessing, the quantization settings, the exclusion entries, the
 * choice to judge the model as the NPU runs it (evaluation and search) and the recovery card's settings
 * (algorithms, budget, the ladder's target and order) are
 * kept in IndexedDB and restored when the page loads — the model reopened through the store's own
 * openModel, the data re-added through addCalibrationData — and "new session" clears them.
 *
 * Writes follow the store: debounced, queued one after another, never awaited by the UI. A failed write
 * (a full quota) becomes status.error for the page to show; it is never thrown. The storage and the
 * model worker's byte copy are injected, so tests drive this with an in-memory store and fakes.
 */
import { BF16_PRESET } from '../../core/precision/bf16Preset.ts';
import type { PreprocessSpec } from '../../core/preprocess/spec.ts';
import type { PresetName as PreprocessPresetName } from '../../core/preprocess/presets.ts';
import type { ModelBytesCopy } from '../remote/workerTypes.ts';
import { sourceFromFiles } from '../features/model/sources.ts';
import type { StudioState, StudioStore } from '../store/createStudioStore.ts';
import type { NpySample } from '../store/calibrationSlice.ts';
import type { ExclusionEntry, NewExclusion } from '../store/exclusionSlice.ts';
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
}

export interface SessionStatus {
  /** What a restore brought back, in words (shown once); null when nothing was restored. */
  restored: string | null;
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

const withoutId = ({ id: _id, ...entry }: ExclusionEntry): NewExclusion => entry as NewExclusion;

const describe = (e: unknown) => `${(e as Error)?.name || 'Error'}: ${(e as Error)?.message ?? String(e)}`;

export function createSessionPersistence({ store, storage, modelBytes, delayMs = 400 }: SessionDependencies) {
  let status: SessionStatus = { restored: null, restoring: false, error: null };
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
    s.model.handle !== null || s.calibration.images.length > 0 || s.calibration.npy.length > 0 || s.exclusions.entries.length > 0;

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
    };
    const data: SavedData = { images: s.calibration.images, npy: s.calibration.npy };
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
        externalFiles: Object.entries(copy.externalFiles).map(([name, file]) => (file instanceof File && file.name === name ? file : new File([file], name))),
      };
      await kv.putAll({ model: saved });
      storedHandle = handle;
    });

  const onChange = (s: StudioState, p: StudioState) => {
    if (s.model.handle !== p.model.handle) {
      if (s.model.handle === null) void enqueue((kv) => kv.delete('model'));
      else if (s.model.handle !== storedHandle) void writeModel(s.model.handle);
    }
    const c = s.calibration;
    const pc = p.calibration;
    if (c.images !== pc.images || c.npy !== pc.npy || c.spec !== pc.spec || s.run.settings !== p.run.settings || s.exclusions.entries !== p.exclusions.entries || s.model.handle !== p.model.handle || s.evaluation.npuBf16 !== p.evaluation.npuBf16 || s.evaluation.suggest.npuBf16 !== p.evaluation.suggest.npuBf16 || s.recovery.options !== p.recovery.options || s.recovery.ladder !== p.recovery.ladder) {
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
      s.setQuantPreset(DEFAULT_PRESET);
      s.replaceExclusions([]);
      storedHandle = null;
      setStatus({ restored: null, error: null });
      await enqueue((kv) => kv.clear());
      unsubscribe = store.subscribe(onChange);
    },

    dismissNote() {
      setStatus({ restored: null, error: null });
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
    const [model, data, choices] = await Promise.all([kv.get<SavedModel>('model'), kv.get<SavedData>('data'), kv.get<SavedChoices>('choices')]);
    if (!model && !data && !choices) return;
    const said: string[] = [];
    if (model) {
      const source = sourceFromFiles([model.file, ...model.externalFiles]);
      if (source) await store.getState().openModel(source);
      const opened = store.getState().model;
      if (opened.handle && opened.fileName === model.file.name) {
        storedHandle = opened.handle;
        said.push(`the model ${model.file.name}`);
      }
    }
    const s = store.getState();
    if (choices?.version === 1) {
      s.setPreprocess(choices.spec, choices.specPreset);
      s.setQuantPreset(choices.settings.preset);
      s.setPerChannel(choices.settings.perChannel);
      s.setCalibrationMethod(choices.settings.calibrationMethod ?? null);
      s.setSaturationSafeWeights(choices.settings.saturationSafeWeights === true);
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
      }
    }
    const images = data?.images ?? [];
    const npy = data?.npy ?? [];
    if (images.length || npy.length) {
      s.addCalibrationData({ images, npy });
      if (images.length) said.push(`${images.length} calibration image${images.length === 1 ? '' : 's'}`);
      if (npy.length) said.push(`${npy.length} .npy sample${npy.length === 1 ? '' : 's'}`);
    }
    if (said.length) setStatus({ restored: `Restored your previous session: ${said.join(', ')}, with its settings.` });
  }
}

export type SessionPersistence = ReturnType<typeof createSessionPersistence>;
