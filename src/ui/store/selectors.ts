/**
 * What the page derives from the store's state rather than keeps in it: the configuration it quantizes
 * with (settings plus exclusion list, the latter as the core's exclusionFields turns it into config fields),
 * the key calibration results are valid for, and whether the ranges at hand still match the settings.
 * Slices, components and exports call these on the state they hold, so each rule is written once. Each
 * takes only the parts of the state it reads (structurally), so this module imports no slice but the
 * exclusion list's types, and every slice can import it without a cycle.
 */
import { exclusionFields } from '../../core/export/configDocument.ts';
import type { PreprocessSpec } from '../../core/preprocess/spec.ts';
import type { CalibrationMethod, QuantConfig } from '../../core/quantize/config.ts';
import type { ExclusionEntry } from './exclusionSlice.ts';
import { calibrationKey, choosesMethod, configOf, type QuantSettings } from './quantSettings.ts';
import type { ModelSummary } from '../../core/onnx/modelSummary.ts';
import { recognizeHead, type HeadGuess } from '../../core/task/recognizeHead.ts';
import type { TaskHead } from '../../core/task/heads.ts';

/** The calibration state the selectors read: the result's key and chosen method, and the preprocessing. */
type CalibrationPart = {
  readonly result: { readonly key: string; readonly methodChoice?: { readonly chosen: CalibrationMethod } } | null;
  readonly spec: PreprocessSpec;
};

/**
 * The configuration the page quantizes with: the settings plus the exclusion list; where the settings choose the
 * calibration method on the samples, the method the current calibration chose.
 */
export function currentConfig(state: {
  readonly run: { readonly settings: QuantSettings };
  readonly exclusions: { readonly entries: readonly ExclusionEntry[] };
  readonly calibration?: CalibrationPart;
}): QuantConfig {
  const chosen =
    state.calibration && rangesAreCurrent({ run: state.run, calibration: state.calibration })
      ? state.calibration.result?.methodChoice?.chosen
      : undefined;
  // exclusionFields gives both lists: subgraphsToExclude and the FP16→FP32 list (fp16SubgraphsToFp32).
  return { ...configOf(state.run.settings, chosen), ...exclusionFields(state.exclusions.entries) };
}

/**
 * The configuration the config file and the Quark and ONNX Runtime scripts describe, with the preset they name.
 * After "Use this model" on a recovery run or a ladder rung, that is the adopted model's own configuration (its
 * preset, transformer rules, SmoothQuant, CLE, fine-tuning and chosen precisions), as long as the settings and
 * the exclusion list are the ones it was adopted under: the page's settings hold only what its quantize step
 * does, so they alone would describe another model. Otherwise, the current settings and picks.
 */
export function exportedConfig(state: {
  readonly run: {
    readonly settings: QuantSettings;
    readonly result: {
      readonly config: QuantConfig | null;
      readonly settings: QuantSettings;
      readonly adoptedUnder?: { readonly settings: QuantSettings; readonly exclusions: readonly ExclusionEntry[] };
    } | null;
  };
  readonly exclusions: { readonly entries: readonly ExclusionEntry[] };
}): { config: QuantConfig; preset: QuantSettings['preset'] } {
  const result = state.run.result;
  const under = result?.adoptedUnder;
  if (
    result?.config &&
    under &&
    under.settings === state.run.settings &&
    under.exclusions === state.exclusions.entries
  ) {
    return { config: result.config, preset: result.settings.preset };
  }
  return { config: currentConfig(state), preset: state.run.settings.preset };
}

/**
 * The key a calibration is valid for: the activation collector settings (or, `choosing`, the held-in choice from
 * them) and the preprocessing.
 */
export function resultKey(config: QuantConfig, spec: PreprocessSpec, choosing = false): string {
  return `${calibrationKey(config, choosing)}|${JSON.stringify(spec)}`;
}

/** Whether there are calibrated ranges and they were collected under the current settings and preprocessing. */
export function rangesAreCurrent(state: {
  readonly run: { readonly settings: QuantSettings };
  readonly calibration: CalibrationPart;
}): boolean {
  const result = state.calibration.result;
  const settings = state.run.settings;
  return (
    result !== null && result.key === resultKey(configOf(settings), state.calibration.spec, choosesMethod(settings))
  );
}

/**
 * Why the open model cannot be calibrated, quantized or tuned (null when it can): steps that start from a
 * float model say so before they are clicked, rather than failing after.
 */
export function floatModelNeeded(state: {
  readonly model: {
    readonly summary: { readonly quantization: { readonly state: string; readonly ops: readonly string[] } } | null;
  };
}): string | null {
  const q = state.model.summary?.quantization;
  if (!q || q.state === 'float') return null;
  return `This model is already quantized (${q.ops.slice(0, 3).join(', ')}${q.ops.length > 3 ? ', …' : ''}): calibration, quantization and recovery start from the float model. Open the float model to quantize it again.`;
}

const suggestions = new WeakMap<ModelSummary, HeadGuess>();
/** The task head recognised from the model open now (core/task/recognizeHead.ts), computed once per model. */
export function headSuggestion(summary: ModelSummary | null): HeadGuess | null {
  if (!summary) return null;
  let g = suggestions.get(summary);
  if (!g) suggestions.set(summary, (g = recognizeHead(summary)));
  return g;
}

/**
 * The task head the page judges the open model with: the user's choice (evaluation.taskByModel), else the head
 * recognised from it; null when the user chose none or nothing was recognised (task targets then need a choice).
 */
export function currentTaskHead(s: {
  model: { summary: ModelSummary | null };
  evaluation: { taskByModel: Readonly<Record<string, TaskHead | 'none'>> };
}): TaskHead | null {
  const key = modelKey(s.model.summary);
  const chosen = key ? s.evaluation.taskByModel[key] : undefined;
  if (chosen === 'none') return null;
  return chosen ?? headSuggestion(s.model.summary)?.head ?? null;
}

/** The key a model's own things are kept under across opens (its file name and size): "yolox-nano.onnx|3660108". */
export function modelKey(summary: { readonly fileName: string; readonly byteLength: number } | null): string | null {
  return summary ? `${summary.fileName}|${summary.byteLength}` : null;
}
