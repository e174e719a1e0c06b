/**
 * The calibration method chosen per model by held-in measurement: the calibration samples are split in two, each
 * candidate method calibrates on the first part, the model quantized with its ranges is judged on the second part
 * (mean output cosine to the float model, at the level the user deploys to), and the best wins; the preset's own
 * method keeps a tie. Only calibration data is used, so a figure judged afterwards on held-out data stays held out.
 * Measured on the benchmarked models (bench preset-methods): no single method is at least as good as MinMax on
 * every model, while the best one differs by model (MinMSE on the PP-OCRv4 detector, MinMax or Entropy on the
 * recognizer). Calibration, quantization and the judge are injected; must not import a runtime or read files.
 */
import type { ModelProto } from '../onnx/model.ts';
import type { CalibrationMethod, QuantConfig } from '../quantize/config.ts';
import type { Ranges } from '../quantize/plan.ts';
import { quantizeModel } from '../quantize/quantizeModel.ts';
import { compareModels, type ComparisonRuntime } from './compareModels.ts';
import { meanOutputCosine } from './outputMetrics.ts';

/** The float-scale methods a preset may swap in (power-of-two presets: MinMax and MinMSE). */
export const CHOICE_METHODS: readonly CalibrationMethod[] = ['MinMax', 'MinMSE', 'Entropy', 'Percentile'];

export interface MethodMeasurement {
  readonly method: CalibrationMethod;
  /** Mean output cosine on the judging part of the calibration samples. */
  readonly cosine: number;
}

export interface MethodChoice {
  readonly chosen: CalibrationMethod;
  /** Every candidate measured, in the order tried (the preset's own method first). */
  readonly measured: readonly MethodMeasurement[];
}

export interface MethodChoiceOptions {
  /** The preset's configuration; its own method is tried first and keeps a tie. */
  readonly config: QuantConfig;
  /** The configuration with `method` in place of the preset's own (core/quantize/presets.ts presetWithMethod). */
  readonly withMethod: (method: CalibrationMethod) => QuantConfig;
  /** Ranges from the first part of the calibration samples under `config`. */
  readonly calibrate: (config: QuantConfig) => Promise<Ranges>;
  /** The second part of the calibration samples, at the level the figure is aimed at. */
  readonly judge: ComparisonRuntime;
  readonly configName: string;
  readonly candidates?: readonly CalibrationMethod[];
  readonly onMeasured?: (m: MethodMeasurement) => void;
}

/** Measures each candidate method on the held-in split and returns the best (the preset's own on a tie). */
export async function chooseCalibrationMethod(model: ModelProto, o: MethodChoiceOptions): Promise<MethodChoice> {
  const own = o.config.calibrationMethod;
  const candidates = [own, ...(o.candidates ?? CHOICE_METHODS).filter((m) => m !== own)];
  const measured: MethodMeasurement[] = [];
  let best: MethodMeasurement | null = null;
  for (const method of candidates) {
    let config: QuantConfig;
    try {
      config = method === own ? o.config : o.withMethod(method);
    } catch {
      continue; // a method this preset's scale type does not take
    }
    const ranges = await o.calibrate(config);
    const quantized = quantizeModel(model, ranges, config, o.configName).model;
    const comparison = await compareModels(model, quantized, o.judge, {});
    const m = { method, cosine: meanOutputCosine(comparison.outputs).cosine };
    measured.push(m);
    o.onMeasured?.(m);
    if (best === null || m.cosine > best.cosine) best = m;
  }
  return { chosen: best?.method ?? own, measured };
}

/** The held-in split of `count` calibration samples: even indices calibrate, odd ones judge (both non-empty). */
export function heldInSplit(count: number): { calibrate: number[]; judge: number[] } {
  if (count < 2)
    throw new Error(`choosing a calibration method by measurement needs at least 2 calibration samples, got ${count}`);
  const all = Array.from({ length: count }, (_, i) => i);
  return { calibrate: all.filter((i) => i % 2 === 0), judge: all.filter((i) => i % 2 === 1) };
}
