/**
 * The calibration slice: the data the user gave (image files and .npy samples, as File handles: no
 * bytes are read here), how images become tensors (the preprocessing spec), and the state of a
 * calibration run: progress while it runs, then the ranges or a named error. It talks to the
 * calibration workers only through the CalibrationService it is given (tests pass a fake).
 *
 * A run can be cancelled; the slice then shows 'cancelled' at once and ignores whatever the old run
 * still reports. Ranges remember the settings they were collected under (`key`), so the page can tell
 * when a changed preset or preprocessing makes them stale.
 */
import type { StateCreator } from 'zustand';
import type { PreprocessSpec } from '../../core/preprocess/spec.ts';
import type { PresetName as PreprocessPresetName } from '../../core/preprocess/presets.ts';
import type { ModelSummary } from '../../core/onnx/index.ts';
import type { BackendPreference } from '../../core/runtime/session.ts';
import type { CalibrationProgress, CalibrationRequest, CalibrationResult } from '../remote/workerTypes.ts';
import { DEFAULT_PREPROCESS } from '../../core/preprocess/spec.ts';
import { defaultImageDims, type DimsSource, type ImageSize } from '../../core/preprocess/defaultDims.ts';
import type { PreprocessGuess } from '../../core/preprocess/recognize.ts';
import { toModelError, type ModelSlice } from './modelSlice.ts';
import { suggestPreprocess } from './preprocessSuggestion.ts';
import { choosesMethod, configOf, methodCandidates, type QuantSettings } from './quantSettings.ts';
import { appendNew, fileKey, samplesOf } from './samples.ts';
import { resultKey } from './selectors.ts';
import { parseStatistics, rangesForConfig } from '../../core/calibrate/run/statisticsFile.ts';

export type { CalibrationProgress, CalibrationResult } from '../remote/workerTypes.ts';

/** What the slice needs from the calibration workers (src/ui/remote implements it). */
export interface CalibrationService {
  /** Calibrates the model the model worker holds under `model.handle`; progress about ten times a second. */
  calibrate(
    model: { handle: string; byteLength: number },
    request: CalibrationRequest,
    onProgress: (p: CalibrationProgress) => void,
  ): Promise<CalibrationResult>;
  /** Stops the running calibration (its promise then rejects with CalibrationCancelledError). */
  cancel(): void;
  /** Ends the calibration workers: their memory is only returned then. */
  release(): void;
}

/** One .npy sample: a file per model input. */
export interface NpySample {
  name: string;
  files: Record<string, File>;
}

/** A file that was not added, and why. */
export interface DataRejection {
  file: string;
  reason: string;
}

export type CalibrationStatus = 'idle' | 'running' | 'done' | 'cancelled' | 'error';

export interface CalibrationError {
  name: string;
  message: string;
}

/** A finished calibration, with what it was computed under. */
export interface CalibrationOutcome extends CalibrationResult {
  /** calibrationKey of the config plus the spec: when it differs from the current one, the ranges are stale. */
  key: string;
  /** Samples given (images or .npy), or 0 for random data. */
  samples: number;
}

export interface CalibrationState {
  images: File[];
  npy: NpySample[];
  rejected: DataRejection[];
  /** Which image the preprocessing preview shows (an index into `images`). */
  previewIndex: number;
  spec: PreprocessSpec;
  /** The preset the spec came from, 'custom' once edited or imported. */
  specPreset: PreprocessPresetName | 'custom';
  /** Why the current preset was suggested, while it is the suggestion. */
  specReason: string | null;
  /** What was recognised for the open model (kept after edits, so the user can go back to it). */
  suggestion: PreprocessGuess | null;
  /** The user accepted the suggestion as it stands. */
  suggestionAccepted: boolean;
  /** Where the symbolic height and width values came from; 'user' once typed or imported. */
  dimsSource: DimsSource | 'user';
  /** The runtime switch (Auto measures, WebGPU or WASM forces one); kept in this browser across sessions. */
  runtime: BackendPreference;
  status: CalibrationStatus;
  progress: CalibrationProgress | null;
  result: CalibrationOutcome | null;
  error: CalibrationError | null;
  /**
   * Data given for another model, now open with this one: offered ('offer': keep or clear?) until the user
   * answers, or already cleared ('cleared': the sample's drawn scenes, which fit no other model), to be said.
   */
  carried: CarriedData | null;
}

/** Calibration and evaluation data that came from the model opened before (see CalibrationState.carried). */
export interface CarriedData {
  kind: 'offer' | 'cleared';
  /** The model they were added for. */
  from: string;
  calibration: number;
  evaluation: number;
}

export interface CalibrationSlice {
  calibration: CalibrationState;
  /** Adds data (duplicates by name, size and date are dropped); rejections replace the previous ones. */
  addCalibrationData(data: { images?: File[]; npy?: NpySample[]; rejected?: DataRejection[] }): void;
  clearCalibrationData(): void;
  /** Shows image `index` in the preprocessing preview. */
  setPreviewImage(index: number): void;
  setPreprocess(spec: PreprocessSpec, preset: PreprocessPresetName | 'custom'): void;
  /** Takes the suggestion as the preprocessing (again, after edits) and marks it accepted. */
  acceptPreprocessSuggestion(): void;
  /** Symbolic height and width from the first image's size, while they hold the fallback guess. */
  fitDimsToImage(image: ImageSize): void;
  /** Calibrates the open model on the data, with the spec and the run slice's quantization settings. */
  calibrate(): Promise<void>;
  /** The runtime switch: the next calibration's workers run on it. */
  setRuntime(runtime: BackendPreference): void;
  cancelCalibration(): void;
  /**
   * Takes a statistics file `qstudio merge --stats` (or `calibrate --stats`) wrote as if the page had
   * calibrated: its ranges under the current settings, or a named error when it was made under others.
   */
  importStatistics(file: File): Promise<void>;
  dismissCalibrationError(): void;
  /** A new model: suggested preprocessing, no results (data is kept: it is the user's). */
  resetCalibrationForModel(summary: ModelSummary | null): void;
  /** Says what happened to the data of the model opened before (null: nothing to say). */
  setCarriedData(carried: CarriedData | null): void;
}

export const initialCalibrationState: CalibrationState = {
  images: [],
  npy: [],
  rejected: [],
  previewIndex: 0,
  spec: { ...DEFAULT_PREPROCESS, mean: [...DEFAULT_PREPROCESS.mean], std: [...DEFAULT_PREPROCESS.std], dims: {} },
  specPreset: 'unit',
  specReason: null,
  suggestion: null,
  suggestionAccepted: false,
  dimsSource: 'none',
  runtime: 'auto',
  status: 'idle',
  progress: null,
  result: null,
  error: null,
  carried: null,
};

/**
 * What calibration reads from the run slice (the quantization settings) and asks of it (drop a quantized
 * model made with older ranges), named here so that the two slices do not import each other.
 */
interface RunPort {
  readonly run: { readonly settings: QuantSettings };
  clearRunResult(): void;
}

const RUNTIME_KEY = 'quant-studio.runtime';

/** The switch as this browser last left it ('auto' where storage is unavailable or holds something else). */
export function readRuntimeChoice(): BackendPreference {
  try {
    const v = globalThis.localStorage?.getItem(RUNTIME_KEY);
    return v === 'webgpu' || v === 'wasm' ? v : 'auto';
  } catch {
    return 'auto';
  }
}

function writeRuntimeChoice(runtime: BackendPreference): void {
  try {
    globalThis.localStorage?.setItem(RUNTIME_KEY, runtime);
  } catch {
    // storage refused (private mode, quota): the choice holds for this page only
  }
}

export function createCalibrationSlice<S extends CalibrationSlice & ModelSlice & RunPort>(
  service: CalibrationService,
): StateCreator<S, [], [], CalibrationSlice> {
  // Each run gets a number; a cancelled or superseded run may not change the state any more.
  let latest = 0;

  return (set, get) => {
    const patch = (p: Partial<CalibrationState>) =>
      set((s) => ({ calibration: { ...s.calibration, ...p } }) as Partial<S>);

    return {
      calibration: { ...initialCalibrationState, runtime: readRuntimeChoice() },

      addCalibrationData({ images = [], npy = [], rejected = [] }) {
        const c = get().calibration;
        // New data for this model: a note that the sample's scenes were cleared has served.
        patch({
          images: appendNew(c.images, images, fileKey),
          npy: appendNew(c.npy, npy, (s) => s.name),
          rejected,
          ...(c.carried?.kind === 'cleared' ? { carried: null } : {}),
        });
      },

      clearCalibrationData() {
        patch({ images: [], npy: [], rejected: [], previewIndex: 0, carried: null });
      },

      setCarriedData(carried) {
        patch({ carried });
      },

      setPreviewImage(index) {
        const n = get().calibration.images.length;
        if (index >= 0 && index < n) patch({ previewIndex: index });
      },

      setPreprocess(spec, preset) {
        const c = get().calibration;
        // The suggestion's reason stays while its preset does (giving dimension values keeps it).
        const dimsChanged = JSON.stringify(spec.dims) !== JSON.stringify(c.spec.dims);
        patch({
          spec,
          specPreset: preset,
          specReason: preset === c.specPreset ? c.specReason : null,
          suggestionAccepted: c.suggestionAccepted && preset === c.specPreset, // sizes are the model's, not the family's
          ...(dimsChanged ? { dimsSource: 'user' as const } : {}),
        });
      },

      acceptPreprocessSuggestion() {
        const { suggestion } = get().calibration;
        if (!suggestion) return;
        patch({
          spec: suggestion.spec,
          specPreset: suggestion.preset,
          specReason: suggestion.label,
          suggestionAccepted: true,
          dimsSource: suggestion.dimsSource,
        });
      },

      fitDimsToImage(image) {
        const c = get().calibration;
        const input = get().model.summary?.inputs.find(
          (i) => i.shape && (i.shape.length === 3 || i.shape.length === 4),
        );
        if (c.dimsSource !== 'fallback' || !input?.shape) return;
        const { dims, source } = defaultImageDims(input.shape, c.spec.layout, { image });
        const spec = { ...c.spec, dims: { ...c.spec.dims, ...dims } };
        const suggestion = c.suggestion && {
          ...c.suggestion,
          spec: { ...c.suggestion.spec, dims: spec.dims },
          dimsSource: source,
        };
        patch({ spec, dimsSource: source, suggestion });
      },

      async calibrate() {
        const { model, calibration, run } = get();
        if (!model.handle || calibration.status === 'running') return;
        const request = ++latest;
        const config = configOf(run.settings);
        const spec = calibration.spec;
        const samples = samplesOf(calibration);
        // The held-in choice needs two samples (one calibrates, one judges); with fewer, the preset's own method.
        const choosing = choosesMethod(run.settings) && samples.length >= 2;
        if (samples.length === 0 && !config.extraOptions.UseRandomData) {
          patch({
            status: 'error',
            error: {
              name: 'NoCalibrationDataError',
              message: 'Add images or .npy tensors in step 1, or turn on random data in step 2.',
            },
          });
          return;
        }
        patch({ status: 'running', progress: null, error: null });
        try {
          // The model's size with its external data (the .onnx of a model with external data is only its graph).
          const target = {
            handle: model.handle,
            byteLength: Math.max(model.summary?.parameterBytes || 0, model.summary?.byteLength || 0),
          };
          const result = await service.calibrate(
            target,
            {
              samples,
              spec,
              config,
              backend: calibration.runtime,
              ...(choosing ? { methodCandidates: methodCandidates(run.settings) } : {}),
            },
            (progress) => {
              if (request === latest) patch({ progress });
            },
          );
          if (request !== latest) return;
          patch({
            status: 'done',
            result: {
              ...result,
              key: resultKey(config, spec, choosesMethod(run.settings)),
              samples: samples.length,
              ...(choosesMethod(run.settings) && !choosing
                ? {
                    warnings: [
                      ...result.warnings,
                      `The calibration method is chosen on the samples when there are at least 2 (one calibrates, one judges): ${config.calibrationMethod}, the preset's own, was used.`,
                    ],
                  }
                : {}),
            },
            error: null,
          });
          get().clearRunResult(); // a model quantized with the old ranges no longer matches
        } catch (e) {
          if (request !== latest) return;
          const error = toModelError(e, '');
          if (error.name === 'CalibrationCancelledError') patch({ status: 'cancelled', progress: null });
          else patch({ status: 'error', error: { name: error.name, message: error.message } });
        }
      },

      setRuntime(runtime) {
        patch({ runtime });
        writeRuntimeChoice(runtime);
      },

      cancelCalibration() {
        if (get().calibration.status !== 'running') return;
        latest++;
        service.cancel();
        patch({ status: 'cancelled', progress: null });
      },

      async importStatistics(file) {
        const { calibration, run } = get();
        if (calibration.status === 'running') return;
        latest++;
        const config = configOf(run.settings);
        try {
          const stats = parseStatistics(await file.text(), `"${file.name}"`);
          const ranges = rangesForConfig(stats, config, `"${file.name}"`);
          const result: CalibrationResult = {
            ranges: Object.fromEntries([...ranges].map(([k, v]) => [k, [v.min, v.max] as const])),
            used: stats.images,
            skipped: [],
            warnings: [
              `Imported from ${file.name}: statistics of ${stats.images} images in ${stats.shards} shard${stats.shards === 1 ? '' : 's'}, calibrated by qstudio (onnxruntime-node) with its own preprocessing.`,
            ],
            method: stats.method,
            backend: { kind: 'native', threads: 0, fallbackReason: null },
            passes: 1,
            seconds: 0,
            runOutputBytes: 0,
          };
          patch({
            status: 'done',
            progress: null,
            result: {
              ...result,
              key: resultKey(config, calibration.spec, choosesMethod(run.settings)),
              samples: stats.images,
            },
            error: null,
          });
          get().clearRunResult();
        } catch (e) {
          const error = toModelError(e, '');
          patch({ status: 'error', error: { name: error.name, message: error.message } });
        }
      },

      dismissCalibrationError() {
        const c = get().calibration;
        if (c.status === 'error') patch({ status: c.result ? 'done' : 'idle', error: null });
      },

      resetCalibrationForModel(summary) {
        latest++;
        service.release();
        const suggestion = summary ? suggestPreprocess(summary) : null;
        patch({
          status: 'idle',
          progress: null,
          result: null,
          error: null,
          suggestionAccepted: false,
          ...(suggestion
            ? {
                spec: suggestion.spec,
                specPreset: suggestion.preset,
                specReason: suggestion.reason,
                suggestion: suggestion.guess,
                dimsSource: suggestion.guess.dimsSource,
              }
            : {
                spec: initialCalibrationState.spec,
                specPreset: 'unit' as const,
                specReason: null,
                suggestion: null,
                dimsSource: 'none' as const,
              }),
        });
      },
    };
  };
}
