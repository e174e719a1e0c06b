/**
 * The preprocessing the page suggests for a freshly opened model: the core's recognition
 * (src/core/preprocess/recognize.ts: family, evidence, confidence, the spec with its symbolic
 * dimensions filled) as the store keeps it. The form starts from it and the page shows it as a
 * suggestion with its reasons, to accept or change; it is never recorded as the user's choice.
 */
import type { ModelSummary } from '../../core/onnx/index.ts';
import { recognizePreprocess, type PreprocessGuess } from '../../core/preprocess/recognize.ts';
import type { PresetName } from '../../core/preprocess/presets.ts';
import type { PreprocessSpec } from '../../core/preprocess/spec.ts';

export interface PreprocessSuggestion {
  preset: PresetName;
  spec: PreprocessSpec;
  /** What was recognised, in a few words ("YOLOX detector"). */
  reason: string;
  guess: PreprocessGuess;
}

/** The suggestion for a model (a summary of a test double may lack outputs). */
export function suggestPreprocess(summary: ModelSummary): PreprocessSuggestion {
  const guess = recognizePreprocess({ ...summary, inputs: summary.inputs ?? [], outputs: summary.outputs ?? [] });
  return { preset: guess.preset, spec: guess.spec, reason: guess.label, guess };
}

/** Symbolic dimension names of the model's inputs, in order, without repeats. */
export function symbolicDims(summary: ModelSummary): string[] {
  const names: string[] = [];
  for (const input of summary.inputs ?? [])
    for (const d of input.shape ?? []) if (typeof d === 'string' && d !== '?' && !names.includes(d)) names.push(d);
  return names;
}
