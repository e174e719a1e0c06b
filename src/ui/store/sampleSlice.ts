/**
 * The sample, complete: the embedded model opens with its own calibration images and a separate
 * held-out set (text scenes the page draws), its preprocessing and input size filled in, and one
 * action runs calibrate → quantize → evaluate so a newcomer lands on the report in one click.
 *
 * It only sequences what the other slices already do (openModel, addCalibrationData, calibrate,
 * quantize, evaluate), reading each one's outcome from the state: a failure stops the run and is
 * shown with the step's own error, and Cancel stops the step that is running (calibration and
 * evaluation are cancelled in their workers; a quantization finishes, and nothing follows it).
 * The scene drawing and the model's URL come from the SampleService it is given (tests pass a fake).
 *
 * The click quantizes with the settings measured best on the sample (SampleService.settings), not the page's default
 * preset, so that a newcomer sees what the studio does for this model; the card says which. The settings in place
 * before are given back when another model is opened, unless the user changed the sample's since (leaveSample).
 */
import type { StateCreator } from 'zustand';
import { defaultImageDims } from '../../core/preprocess/defaultDims.ts';
import { getPreprocessPreset, type PresetName } from '../../core/preprocess/presets.ts';
import type { PreprocessSpec } from '../../core/preprocess/spec.ts';
import type { SceneSet } from '../../core/samples/textScenes.ts';
import type { ModelSummary } from '../../core/onnx/index.ts';
import type { CalibrationSlice } from './calibrationSlice.ts';
import type { EvaluationSlice } from './evaluationSlice.ts';
import type { ModelSlice, ModelSource } from './modelSlice.ts';
import type { RunSlice } from './runSlice.ts';
import type { QuantSettings } from './quantSettings.ts';
import type { PresetName as QuantPresetName } from '../../core/quantize/presets.ts';

/** What the slice needs from the page: the sample model and its images. */
export interface SampleService {
  /** The model file's name ("ppocr-det.onnx"): an open model of this name is the sample. */
  fileName: string;
  /** Where the model comes from (this site). */
  source(): ModelSource;
  /** The preprocessing preset of the sample's family. */
  preset: PresetName;
  /** Its input size for calibration and evaluation (the scenes are drawn at this size). */
  size: { height: number; width: number };
  /** How many scenes calibrate it and how many judge it. */
  counts: Record<SceneSet, number>;
  /** Draws a set's scenes as image files. */
  images(set: SceneSet, count: number): Promise<File[]>;
  /** The quantization the one click runs: the settings measured best on this model, held out. */
  settings: { preset: QuantPresetName; perChannel: boolean; calibrationMethod: string };
}

export type SampleStage = 'open' | 'images' | 'calibrate' | 'quantize' | 'evaluate';
export type SampleStatus = 'idle' | 'running' | 'done' | 'cancelled' | 'error';

export interface SampleState {
  status: SampleStatus;
  /** The step running, or the one that failed or was cancelled. */
  stage: SampleStage | null;
  /** Whether the running action goes on to quantize and evaluate (false: only open with data). */
  full: boolean;
  error: { name: string; message: string } | null;
  /** Seconds from the click to the report, once done. */
  seconds: number | null;
}

export interface SampleSlice {
  sample: SampleState;
  /** Opens the sample with its calibration and held-out images and its preprocessing. */
  openSample(): Promise<void>;
  /** openSample, then calibrate, quantize and evaluate on the held-out images. */
  quantizeSample(): Promise<void>;
  cancelSample(): void;
  dismissSampleError(): void;
  /** Another model was opened: the last run's outcome no longer applies (a running run goes on). */
  resetSample(): void;
  /**
   * The sample was left for another model: the quantization settings in place before its click come back, unless
   * they were changed since the click set the sample's.
   */
  leaveSample(): void;
}

export const initialSampleState: SampleState = { status: 'idle', stage: null, full: false, error: null, seconds: null };

/** The sample's preprocessing for its opened model: the family preset, symbolic dims at the sample's size. */
export function sampleSpec(service: Pick<SampleService, 'preset' | 'size'>, summary: ModelSummary): PreprocessSpec {
  const spec = getPreprocessPreset(service.preset);
  const input = summary.inputs.find((i) => i.shape && (i.shape.length === 3 || i.shape.length === 4));
  if (input?.shape) spec.dims = defaultImageDims(input.shape, spec.layout, { familySize: service.size }).dims;
  return spec;
}

type Needs = SampleSlice & ModelSlice & CalibrationSlice & RunSlice & EvaluationSlice;

/** A step ended without its result: the run stops with the step's own error. */
class StepFailed extends Error {}

export function createSampleSlice<S extends Needs>(service: SampleService): StateCreator<S, [], [], SampleSlice> {
  // Each run gets a number; Cancel or a new run makes the old one stop at its next step.
  let latest = 0;
  // The settings before the first click set the sample's, and the settings that click left (to tell a user's change).
  let before: QuantSettings | null = null;
  let applied: QuantSettings | null = null;

  return (set, get) => {
    const patch = (p: Partial<SampleState>) => set((s) => ({ sample: { ...s.sample, ...p } }) as Partial<S>);

    /** Runs the steps of one click; returns quietly when superseded or cancelled. */
    async function run(full: boolean): Promise<void> {
      if (get().sample.status === 'running') return;
      const request = ++latest;
      const started = performance.now();
      const live = () => request === latest;
      const stage = (s: SampleStage) => patch({ stage: s });
      patch({ status: 'running', stage: 'open', full, error: null, seconds: null });
      try {
        if (get().model.fileName !== service.fileName || !get().model.handle) {
          await get().openModel(service.source());
          if (!live()) return;
          const m = get().model;
          if (m.fileName !== service.fileName || !m.summary)
            throw new StepFailed(m.error?.message ?? 'The sample model did not open.', { cause: m.error });
        }
        stage('images');
        const [calibration, heldOut] = await Promise.all([
          service.images('calibration', service.counts.calibration),
          service.images('heldOut', service.counts.heldOut),
        ]);
        if (!live()) return;
        const s = get();
        s.clearCalibrationData();
        s.addCalibrationData({ images: calibration });
        s.clearEvaluationData();
        s.addEvaluationData({ images: heldOut });
        // The sample's preprocessing is known, not guessed: the recognised one, accepted, at the sample's size.
        if (s.calibration.suggestion?.preset === service.preset) s.acceptPreprocessSuggestion();
        get().setPreprocess(sampleSpec(service, s.model.summary!), service.preset);
        if (!full) {
          patch({ status: 'idle', stage: null });
          return;
        }

        // The sample's own settings (measured best on it); the user's are kept to give back on leaving.
        if (get().run.settings !== applied) before = get().run.settings;
        get().setQuantPreset(service.settings.preset);
        get().setPerChannel(service.settings.perChannel);
        get().setCalibrationMethod(service.settings.calibrationMethod);
        applied = get().run.settings;

        stage('calibrate');
        await get().calibrate();
        if (!live()) return;
        const c = get().calibration;
        if (c.status !== 'done')
          throw new StepFailed(c.error?.message ?? `Calibration ended ${c.status}.`, { cause: c.error });

        stage('quantize');
        await get().quantize();
        if (!live()) return;
        const r = get().run;
        if (r.status !== 'done')
          throw new StepFailed(r.error?.message ?? 'Quantization did not finish.', { cause: r.error });

        stage('evaluate');
        await get().evaluate();
        if (!live()) return;
        const e = get().evaluation;
        if (e.status !== 'done')
          throw new StepFailed(e.error?.message ?? `Evaluation ended ${e.status}.`, { cause: e.error });
        patch({ status: 'done', seconds: (performance.now() - started) / 1000 });
      } catch (err) {
        if (!live()) return;
        const cause = (err as { cause?: { name?: string } }).cause;
        const name =
          err instanceof StepFailed ? (cause?.name ?? 'SampleStepError') : err instanceof Error ? err.name : 'Error';
        patch({ status: 'error', error: { name, message: err instanceof Error ? err.message : String(err) } });
      }
    }

    return {
      sample: initialSampleState,

      openSample: () => run(false),
      quantizeSample: () => run(true),

      cancelSample() {
        const { sample } = get();
        if (sample.status !== 'running') return;
        latest++;
        if (sample.stage === 'calibrate') get().cancelCalibration();
        if (sample.stage === 'evaluate') get().cancelEvaluation();
        patch({ status: 'cancelled' });
      },

      dismissSampleError() {
        if (get().sample.status === 'error') patch({ status: 'idle', stage: null, error: null });
      },

      resetSample() {
        if (get().sample.status !== 'running') set({ sample: initialSampleState } as Partial<S>);
      },

      leaveSample() {
        if (before && get().run.settings === applied)
          set((s) => ({ run: { ...s.run, settings: before! } }) as Partial<S>);
        before = null;
        applied = null;
      },
    };
  };
}
