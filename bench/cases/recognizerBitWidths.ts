/**
 * How many bits the PP-OCRv4 recognizer's activations need (issue 36 point 5): A8W8 per channel with the attention
 * rules, ranges by `method` (MinMax unless given) calibrated on text lines 00–15, every activation written at 16 bits,
 * then each activation Q/DQ pair's scale multiplied by 2^(16 − b) so that its 16-bit codes step as a b-bit grid over the
 * same range would (b-bit activations emulated in onnxruntime's int16 Q/DQ; the codes are not clipped at ±2^(b−1),
 * which with MinMax ranges only matters where a line exceeds the calibrated range). The model's output Softmax stays
 * at 16 bits (lines are read the same with it at 8; it only moves the KL). `front=<n>` (and `from=<m>`) widens only activation
 * groups m to n − 1 in graph order to b bits and keeps the rest at 8 (emulated the same way); `w16=<n>` puts the first
 * n weights at 16 bits. `wbits=<b>` instead writes every weight at 16 bits and re-rounds each weight's codes on a b-bit
 * grid (its per-channel scale × 2^(16 − b)), the first `wfront=<n>` weights only where given (the rest at 8 bits, as
 * written by the preset); the activations then follow `bits` as above. Judged held in (lines 00–15, 'all') and held out (16–31, 'all' and 'basic') by onnxruntime-node
 * on the written bytes: lines read as the float model reads them, CER against it, mean per-step KL. JSON lines on stdout.
 * Usage: recognizerBitWidths.ts [method=MinMax] [bits=8,9,10,11,12] [from=<m>] [front=<n>] [w16=<n>] [wbits=<b>] [wfront=<n>] [basic=1]
 */
import fs from 'node:fs';
import { decode, encode } from '../../src/core/onnx/index.ts';
import type { ModelProto } from '../../src/core/onnx/model.ts';
import { withCoarserGrids } from '../../src/core/quantize/coarserGrids.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod } from '../../src/core/quantize/config.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { precisionUnits, withUnits } from '../../src/core/search/mixedPrecision.ts';
import { createTextJudges, RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { caseClock, caseOption } from './caseArguments.ts';

const clock = caseClock();

const model = decode(fs.readFileSync(RECOGNIZER_PATH));
const { calibration, evaluation } = textLineFiles();
const { heldIn, heldOut } = await createTextJudges(encode(model), { calibration, evaluation });
const method = (caseOption('method') ?? 'MinMax') as CalibrationMethod;
const config = withOptions(getPreset('A8W8'), {
  perChannel: true,
  enableNpuTransformer: true,
  calibrationMethod: method,
});
const { ranges } = await calibrateOnTensors(model, calibration.map(textLineTensor), { config });
const units = precisionUnits(quantizeModel(model, ranges, config), config);
const outputNames = new Set(model.graph!.output.map((o) => o.name ?? ''));
const activations = units.act16.filter((u) => !u.names.some((t) => outputNames.has(t)));
const front = Number(caseOption('front') ?? activations.length);
const from = Number(caseOption('from') ?? 0);
const weightBits = caseOption('wbits') === undefined ? undefined : Number(caseOption('wbits'));
const weights16 =
  weightBits === undefined
    ? units.w16.slice(0, Number(caseOption('w16') ?? 0))
    : units.w16.slice(0, Number(caseOption('wfront') ?? units.w16.length));
const weightNames = new Set(weights16.flatMap((u) => u.names));
if (caseOption('list')) activations.forEach((u, i) => console.log(i, u.names.join(', ')));
const written = quantizeModel(model, ranges, withUnits(config, [...units.act16, ...weights16])).model;

/** The written model with each named activation pair stepped as a `bits`-bit grid, the others as 8 bits. */
function emulated(bits: number): ModelProto {
  const wide = new Set(activations.slice(from, front).flatMap((u) => u.names));
  const narrow = new Set([...activations.slice(0, from), ...activations.slice(front)].flatMap((u) => u.names));
  const regridded = withCoarserGrids(written, { weights: weightBits, only: weightNames });
  return withCoarserGrids(withCoarserGrids(regridded, { activations: bits, only: wide }), {
    activations: 8,
    only: narrow,
  });
}

for (const bits of (caseOption('bits') ?? '8,9,10,11,12').split(',').map(Number)) {
  const bytes = encode(emulated(bits));
  console.log(
    JSON.stringify({
      method,
      bits,
      front: `groups ${from}–${Math.min(front, activations.length) - 1} of ${activations.length} activation groups at ${bits} bits, the rest at 8`,
      weights16: weights16.length > 8 ? `${weights16.length} weights` : weights16.map((u) => u.names.join('+')),
      weightBits: weightBits ?? 'as written',
      heldIn: await heldIn(bytes),
      heldOutAll: await heldOut.all(bytes),
      ...(caseOption('basic') ? { heldOutBasic: await heldOut.basic(bytes) } : {}),
      ...clock(),
    }),
  );
}
