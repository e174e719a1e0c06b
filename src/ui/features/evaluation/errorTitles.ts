/**
 * What the evaluation screen calls each named error, and what the user can do about it. Errors the
 * calibration screen already names (WorkerError, NoUsableSamplesError, …) fall back to its texts.
 */
import { errorHint as calibrationHint, errorTitle as calibrationTitle } from '../calibration/errorTitles.ts';

const TEXTS: Record<string, { title: string; hint?: string }> = {
  NotQuantizedError: {
    title: 'Nothing to evaluate yet',
    hint: 'Quantize the model in step 5; the evaluation compares it with the float model.',
  },
  NoEvaluationDataError: {
    title: 'No evaluation data',
    hint: 'Drop evaluation images here, or use the calibration images.',
  },
  NoUsableSamplesError: {
    title: 'None of the images could be read',
    hint: 'Give PNG, JPEG or WebP images; damaged files are skipped.',
  },
  ComparisonError: {
    title: 'The models cannot be compared',
    hint: "Quantize this model again: the quantized model must have the float model's inputs and outputs.",
  },
  NotCalibratedError: {
    title: 'Calibrate first',
    hint: 'The search re-quantizes with the calibrated ranges of the current settings.',
  },
  ConfigError: { title: 'Check the settings' },
  ExclusionError: { title: 'An exclusion names nothing in this model' },
  ModelTooLargeError: {
    title: 'Too large to evaluate in the page',
    hint: 'Evaluate with the command line: npx qstudio evaluate <float.onnx> <quant.onnx> --data <dir>.',
  },
};

export function evaluationErrorTitle(name: string, fallback: string): string {
  return TEXTS[name]?.title ?? calibrationTitle(name, fallback);
}

export function evaluationErrorHint(name: string): string | undefined {
  return TEXTS[name] ? TEXTS[name].hint : calibrationHint(name);
}
