/**
 * The run slice: the quantization settings (preset, per-channel weights, random calibration data)
 * and the quantization itself: the model worker turns the open float model and the calibrated
 * ranges into a QDQ model, returned as a Blob to download, with the core's report.
 *
 * The Blob is the one payload the page keeps: the user asked to download it. Quantizing refuses stale
 * ranges (collected under other settings) rather than quietly producing a wrong model.
 */
import { StudioError } from '../../core/onnx/errors.ts';
import { externalDataFileName } from '../../core/onnx/externalize.ts';
import type { StateCreator } from 'zustand';
import type { QuantConfig, TensorQuantOverrides } from '../../core/quantize/config.ts';
import { choosesMethodByDefault, getPreset, type PresetName } from '../../core/quantize/presets.ts';
import { HELD_IN_METHOD } from '../../core/evaluate/calibrationMethodChoice.ts';
import type { QuantizeReport } from '../../core/quantize/quantizeReport.ts';
import type { CalibrationSample, RangeTable } from '../remote/workerTypes.ts';
import type { CalibrationSlice } from './calibrationSlice.ts';
import type { ExclusionEntry, ExclusionSlice } from './exclusionSlice.ts';
import { toModelError, type ModelSlice } from './modelSlice.ts';
import {
  DEFAULT_FP16_OPTIONS,
  methodsFor,
  presetSettings,
  type Fp16Options,
  type QuantSettings,
  type StudioPreset,
} from './quantSettings.ts';
import { BF16_PRESET } from '../../core/quantize/bf16Preset.ts';
import { currentConfig, rangesAreCurrent } from './selectors.ts';
import { modelStem } from '../../core/onnx/fileName.ts';

/** A quantized model as the page holds it. */
export interface QuantizedModel {
  blob: Blob;
  byteLength: number;
  report: QuantizeReport;
  seconds: number;
  /** The external data file the .onnx refers to (a source with external data, or a result over 2 GB); both are downloads. */
  data?: { fileName: string; blob: Blob; byteLength: number };
}

/** What the slice needs from the model worker (src/ui/remote implements it). */
export interface QuantizeService {
  quantize(
    modelHandle: string,
    ranges: RangeTable,
    config: QuantConfig,
    configName: string,
    dataFileName?: string,
  ): Promise<QuantizedModel>;
  /** The BF16 preset's with-cast model of the open model (no ranges). */
  quantizeBf16(modelHandle: string, dataFileName?: string): Promise<QuantizedModel>;
}

export type RunStatus = 'idle' | 'running' | 'done' | 'error';

export interface RunResult extends QuantizedModel {
  /** `<model>.quant.onnx`. */
  fileName: string;
  settings: QuantSettings;
  /** The exact configuration the model was made with and its name (a preset, or a ladder rung's label); null for BF16. */
  config: QuantConfig | null;
  configName: string;
  /**
   * For a model made elsewhere (a recovery run or ladder rung made the result by "Use this model"): the page's
   * settings and exclusion list right after it was adopted. While both are still these very objects, the config
   * file and the scripts describe the adopted model's own configuration (selectors.ts, exportedConfig).
   */
  adoptedUnder?: { settings: QuantSettings; exclusions: readonly ExclusionEntry[] };
}

/** A run's model as the workers take it: its file name, its bytes, and its external data file under the name the model uses. */
export function quantizedFile(result: RunResult): { name: string; data: Blob; externalData?: Record<string, Blob> } {
  return {
    name: result.fileName,
    data: result.blob,
    ...(result.data ? { externalData: { [result.data.fileName]: result.data.blob } } : {}),
  };
}

/** What the evaluation and the parity check both send their worker: the quantized model, the samples, the preprocessing. */
export function comparisonInputs(
  result: RunResult,
  samples: CalibrationSample[],
  state: Pick<CalibrationSlice, 'calibration'>,
): {
  quantized: ReturnType<typeof quantizedFile>;
  samples: CalibrationSample[];
  spec: CalibrationSlice['calibration']['spec'];
} {
  return { quantized: quantizedFile(result), samples, spec: state.calibration.spec };
}

export interface RunState {
  settings: QuantSettings;
  status: RunStatus;
  result: RunResult | null;
  error: { name: string; message: string } | null;
}

export interface RunSlice {
  run: RunState;
  /** Picks a preset; per-channel and random data follow the preset's own values. BF16 keeps the integer settings behind it. */
  setQuantPreset(preset: StudioPreset): void;
  setPerChannel(perChannel: boolean): void;
  /**
   * The calibration method instead of the preset's (null: the preset's own). One the preset's scale type does
   * not take (or no method at all, from an old or edited record) leaves the preset's.
   */
  setCalibrationMethod(method: string | null): void;
  /** Saturation-safe weights for a CPU deployment (off: the setting is dropped, as the presets have it). */
  setSaturationSafeWeights(on: boolean): void;
  /** Quantize inside If/Loop/Scan bodies (off: the setting is dropped, as the presets have it). */
  setEnableSubgraph(on: boolean): void;
  setUseRandomData(useRandomData: boolean): void;
  /** The FP16 options (float16 models); a change, like any setting, makes an earlier quantized model stale. */
  setFp16Options(options: Partial<Fp16Options>): void;
  /** Per-tensor types (mixed precision's 16-bit tensors); a preset change keeps them. */
  setTensorOverrides(tensorOverrides: TensorQuantOverrides): void;
  /** Quantizes the open model with the current calibration's ranges, leaving the exclusion list's nodes float. */
  quantize(): Promise<void>;
  dismissRunError(): void;
  /** A new model or new ranges: the old quantized model no longer applies. */
  clearRunResult(): void;
  /** Makes a model quantized elsewhere (a recovery run, a ladder rung) the run's result. */
  adoptQuantized(result: RunResult): void;
}

/** Stale or missing ranges: calibrate (again) first. */
export class NotCalibratedError extends StudioError {
  override readonly name = 'NotCalibratedError';
}

export const DEFAULT_PRESET: PresetName = 'XINT8';

/** "yolox-nano.onnx" → "yolox-nano.bf16.onnx". */
export function bf16FileName(fileName: string): string {
  return `${modelStem(fileName)}.bf16.onnx`;
}

/** "yolox-nano.onnx" → "yolox-nano.quant.onnx". */
export function quantizedFileName(fileName: string): string {
  return `${modelStem(fileName)}.quant.onnx`;
}

export function createRunSlice<S extends RunSlice & CalibrationSlice & ModelSlice & ExclusionSlice>(
  service: QuantizeService,
): StateCreator<S, [], [], RunSlice> {
  let latest = 0;

  return (set, get) => {
    const patch = (p: Partial<RunState>) => set((s) => ({ run: { ...s.run, ...p } }) as Partial<S>);
    const settings = (p: Partial<QuantSettings>) => patch({ settings: { ...get().run.settings, ...p } });

    return {
      run: { settings: presetSettings(DEFAULT_PRESET), status: 'idle', result: null, error: null },

      setQuantPreset(preset) {
        if (preset === BF16_PRESET) settings({ bf16: true });
        // The whole settings (BF16 off); mixed precision's per-tensor types and the FP16 options stay.
        else
          patch({
            settings: {
              ...presetSettings(preset),
              tensorOverrides: get().run.settings.tensorOverrides,
              ...(get().run.settings.fp16 ? { fp16: get().run.settings.fp16 } : {}),
            },
          });
      },
      setTensorOverrides(tensorOverrides) {
        settings({ tensorOverrides });
      },
      setPerChannel(perChannel) {
        settings({ perChannel });
      },
      setCalibrationMethod(method) {
        const { preset } = get().run.settings;
        const valid = method === HELD_IN_METHOD ? HELD_IN_METHOD : methodsFor(preset).find((m) => m === method);
        // The preset's default is stored as none (the held-in choice for A8W8, the preset's own method for the
        // others), so the preset keeps stating only its reference's config.
        const byDefault = choosesMethodByDefault(preset) ? HELD_IN_METHOD : getPreset(preset).calibrationMethod;
        const { calibrationMethod: _dropped, ...rest } = get().run.settings;
        patch({ settings: valid && valid !== byDefault ? { ...rest, calibrationMethod: valid } : rest });
      },
      setSaturationSafeWeights(on) {
        const { saturationSafeWeights: _dropped, ...rest } = get().run.settings;
        patch({ settings: on ? { ...rest, saturationSafeWeights: true } : rest });
      },
      setEnableSubgraph(on) {
        const { enableSubgraph: _dropped, ...rest } = get().run.settings;
        patch({ settings: on ? { ...rest, enableSubgraph: true } : rest });
      },
      setUseRandomData(useRandomData) {
        settings({ useRandomData });
      },
      setFp16Options(options) {
        settings({ fp16: { ...DEFAULT_FP16_OPTIONS, ...get().run.settings.fp16, ...options } });
      },

      async quantize() {
        const { model, calibration, run } = get();
        if (!model.handle || !model.fileName || run.status === 'running') return;
        const request = ++latest;
        patch({ status: 'running', error: null });
        if (run.settings.bf16) {
          // BF16 with-cast needs no ranges (bfloat16 keeps float32's range): calibration is optional, as in the guide.
          try {
            const fileName = bf16FileName(model.fileName);
            const out = await service.quantizeBf16(model.handle, externalDataFileName(fileName));
            if (request !== latest) return;
            patch({
              status: 'done',
              result: { ...out, fileName, settings: run.settings, config: null, configName: BF16_PRESET },
            });
          } catch (e) {
            if (request !== latest) return;
            const { name, message } = toModelError(e, '');
            patch({ status: 'error', error: { name, message } });
          }
          return;
        }
        // The user's exclusions ride along; the core resolves them (an entry naming nothing is an ExclusionError).
        const config = currentConfig(get());
        try {
          const result = calibration.result;
          if (!result || !rangesAreCurrent(get())) {
            throw new NotCalibratedError(
              result
                ? 'The quantization settings or the preprocessing changed since the last calibration: calibrate again, so the ranges match.'
                : 'Calibrate first: quantizing needs the ranges of the activations.',
            );
          }
          const fileName = quantizedFileName(model.fileName);
          const out = await service.quantize(
            model.handle,
            result.ranges,
            config,
            run.settings.preset,
            externalDataFileName(fileName),
          );
          if (request !== latest) return;
          patch({
            status: 'done',
            result: { ...out, fileName, settings: run.settings, config, configName: run.settings.preset },
          });
        } catch (e) {
          if (request !== latest) return;
          const { name, message } = toModelError(e, '');
          patch({ status: 'error', error: { name, message } });
        }
      },

      dismissRunError() {
        const run = get().run;
        if (run.status === 'error') patch({ status: run.result ? 'done' : 'idle', error: null });
      },

      clearRunResult() {
        latest++;
        patch({ status: 'idle', result: null, error: null });
      },

      adoptQuantized(result) {
        latest++;
        patch({ status: 'done', result, error: null });
      },
    };
  };
}
