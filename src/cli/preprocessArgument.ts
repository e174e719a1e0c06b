/**
 * `--preprocess <preset|file.json>`: a preprocessing preset name or the JSON the page exports. Without
 * it, the 'unit' preset (RGB scaled to 0–1) is used and the command says so.
 */
import { getPreprocessPreset, isPresetName, PRESET_NAMES } from '../core/preprocess/presets.ts';
import { parsePreprocess, type PreprocessSpec } from '../core/preprocess/spec.ts';
import { readInputFile } from './usage.ts';

export function loadPreprocessArgument(argument: string | undefined): { spec: PreprocessSpec; note?: string } {
  if (!argument) {
    return { spec: getPreprocessPreset('unit'), note: `no --preprocess given: using 'unit' (RGB, 0–1); presets: ${PRESET_NAMES.join(', ')}` };
  }
  if (isPresetName(argument)) return { spec: getPreprocessPreset(argument) };
  return { spec: parsePreprocess(new TextDecoder().decode(readInputFile(argument))) };
}
