/**
 * A first preprocessing guess for a freshly opened model, from what is trivial to tell: a file name
 * that names a known family (YOLO, UltraFace, YuNet, super-resolution), or the input's shape (one
 * channel, 224×224). It is only where the form starts; the page says it is a suggestion and the user
 * edits any field. Symbolic batch dimensions get 1; other symbolic dimensions are left for the user.
 */
import type { ModelSummary } from '../../core/onnx/index.ts';
import { getPreprocessPreset, type PresetName } from '../../core/preprocess/presets.ts';
import type { PreprocessSpec } from '../../core/preprocess/spec.ts';

export interface PreprocessSuggestion {
  preset: PresetName;
  spec: PreprocessSpec;
  /** Why this preset, in a few words ("file name mentions YOLO"). */
  reason: string;
}

function presetFor(summary: ModelSummary): { preset: PresetName; reason: string } {
  const name = (summary.fileName ?? '').toLowerCase();
  const inputs = summary.inputs ?? [];
  const shape = inputs.length === 1 ? inputs[0].shape : null;
  const channels = shape && shape.length === 4 ? shape[1] : null;
  if (/yolo/.test(name)) return { preset: 'yolo', reason: 'the file name mentions YOLO' };
  if (/ultraface|rfb-?320|rfb-?640|version-rfb/.test(name)) return { preset: 'ultraface', reason: 'the file name mentions UltraFace' };
  if (/yunet|facedetectoryn/.test(name)) return { preset: 'bgr-255', reason: 'the file name mentions YuNet' };
  if (channels === 1 && /super|resolution|srcnn|espcn/.test(name)) return { preset: 'y-channel', reason: 'a one-channel super-resolution model' };
  if (channels === 1) return { preset: 'unit', reason: 'a one-channel input' };
  if (channels === 3 && shape![2] === 224 && shape![3] === 224) return { preset: 'imagenet', reason: 'a 224×224 RGB input, as ImageNet classifiers take' };
  return { preset: 'unit', reason: 'nothing in the model says otherwise' };
}

/** The suggested spec for a model, with symbolic batch dimensions set to 1. */
export function suggestPreprocess(summary: ModelSummary): PreprocessSuggestion {
  const { preset, reason } = presetFor(summary);
  const spec = getPreprocessPreset(preset);
  const inputs = summary.inputs ?? [];
  const shape = inputs.length === 1 ? inputs[0].shape : null;
  if (shape && shape.length === 4 && typeof shape[0] === 'string' && shape[0] !== '?') spec.dims = { [shape[0]]: 1 };
  return { preset, spec, reason };
}

/** Symbolic dimension names of the model's inputs, in order, without repeats. */
export function symbolicDims(summary: ModelSummary): string[] {
  const names: string[] = [];
  for (const input of summary.inputs ?? []) for (const d of input.shape ?? []) if (typeof d === 'string' && d !== '?' && !names.includes(d)) names.push(d);
  return names;
}
