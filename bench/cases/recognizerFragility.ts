/**
 * How much the float PP-OCRv4 recognizer's own text moves under a perturbation far smaller than any 8-bit
 * quantization: the float model on the held-out lines (16–31) with uniform noise of ±`steps` image levels added to
 * its input (one level is 2/255 after PaddleOCR's normalization; ±0.5 is the rounding noise of storing the line
 * again as an 8-bit image), judged against its decoding of the clean lines exactly as bench/cases/recognizer.ts
 * judges a quantized model. It frames the text target: a quantized model that keeps 14 of 16 lines and CER
 * ≤ 1 % must move the output less than this noise does. Usage: recognizerFragility.ts <steps> [seeds]; the figures
 * are pooled over the seeds (default 3).
 */
import fs from 'node:fs';
import { decode, encode } from '../../src/core/onnx/index.ts';
import { sequenceAgreement, characterErrorRate } from '../../src/core/metrics/sequence.ts';
import { createSession, float32Tensor } from '../../src/cli/runtime/ortNode.ts';
import { seededRandom } from '../../src/core/seededRandom.ts';
import { RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';

const steps = Number(process.argv[2] ?? 0.5);
const seeds = Number(process.argv[3] ?? 3);
const session = await createSession(encode(decode(fs.readFileSync(RECOGNIZER_PATH))));
const inputs = textLineFiles().evaluation.map(textLineTensor);
const clean = [];
for (const x of inputs) clean.push(Object.values(await session.run({ x }))[0]);
let matches = 0,
  errors = 0,
  chars = 0,
  stepMatches = 0,
  rows = 0;
const perSeed: string[] = [];
for (let seed = 1; seed <= seeds; seed++) {
  const random = seededRandom(seed);
  let seedMatches = 0;
  for (const [k, x] of inputs.entries()) {
    const noisy = Float32Array.from(x.data as Float32Array, (v) => v + (random() * 2 - 1) * steps * (2 / 255));
    const out = Object.values(await session.run({ x: float32Tensor(noisy, x.dims as number[]) }))[0];
    const a = sequenceAgreement(clean[k].data as Float32Array, out.data as Float32Array, clean[k].dims as number[]);
    seedMatches += a.sequenceMatches;
    errors += a.charErrors;
    chars += a.referenceChars;
    stepMatches += a.stepMatches;
    rows += a.steps;
  }
  matches += seedMatches;
  perSeed.push(`${seedMatches}/${inputs.length}`);
}
console.log(
  JSON.stringify({
    model: 'ch_PP-OCRv4_rec_infer.onnx',
    preset: 'float',
    variant: `input noise ±${steps} image level (uniform, ${seeds} seeds)`,
    linesMatching: `${(matches / seeds).toFixed(1)}/${inputs.length}`,
    cer: +(100 * characterErrorRate(errors, chars)).toFixed(2),
    stepTop1: +(stepMatches / rows).toFixed(4),
    detail: `lines per seed ${perSeed.join(', ')}; judged against the float model's decoding of the clean lines 16–31`,
  }),
);
