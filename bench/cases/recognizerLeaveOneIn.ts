/**
 * Where the PP-OCRv4 recognizer's 8-bit error comes from (issue 36 point 5), measured on the written models by
 * onnxruntime-node: A8W8 per channel with the attention rules (ranges by `method`, MinMSE unless given, calibrated on
 * text lines 00–15), then
 *   - the split: every weight at 16 bits with the activations at 8, every activation at 16 with the weights at 8, both;
 *   - each unit's own cost ("leave one in"): everything at 16 bits but that one activation group or weight, judged on
 *     lines 00–15 by the mean per-step KL of the output distributions against the float model's (a smooth figure, where
 *     lines read alike move in steps) and by lines read alike; a unit's cost is its KL less that of everything at 16;
 *   - with `top=<a>:<w>[,<a>:<w>…]`, the a costliest activation groups and w costliest weights at 16 bits (the rest at
 *     8), judged on lines 00–15 and held out on 16–31 at 'all' and 'basic'.
 * Usage: recognizerLeaveOneIn.ts [method=<m>] [units=<n>] [top=8:0,12:4] [split=out] [order=ranked]   (units=0 skips
 *   the per-unit pass; split=out judges each unit's cost on lines 16–31 and skips the split rows; order=ranked takes the
 *   units in the stored held-in order; JSON on stdout)
 */
import { decode, encode } from '../../src/core/onnx/index.ts';
import fs from 'node:fs';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod } from '../../src/core/quantize/config.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { precisionUnits, withUnits, type PrecisionUnit } from '../../src/core/search/mixedPrecision.ts';
import { createTextJudges, RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { caseOption } from './caseArguments.ts';

const model = decode(fs.readFileSync(RECOGNIZER_PATH));
const { calibration, evaluation } = textLineFiles();
const floatBytes = encode(model);
const { heldIn, heldOut } = await createTextJudges(floatBytes, { calibration, evaluation });
const config = withOptions(getPreset('A8W8'), {
  perChannel: true,
  enableNpuTransformer: true,
  calibrationMethod: (caseOption('method') ?? 'MinMSE') as CalibrationMethod,
});
const { ranges } = await calibrateOnTensors(model, calibration.map(textLineTensor), { config });
const units = precisionUnits(quantizeModel(model, ranges, config), config);
const everything = [...units.act16, ...units.w16];
const bytesOf = (wide: readonly PrecisionUnit[]) => encode(quantizeModel(model, ranges, withUnits(config, wide)).model);

/** Held in at 'all', held out at 'all' and 'basic'. */
async function judged(label: string, wide: readonly PrecisionUnit[]) {
  const bytes = bytesOf(wide);
  const row = {
    label,
    act16: wide.filter((u) => u.kind === 'act16').reduce((s, u) => s + u.cost, 0),
    w16: wide.filter((u) => u.kind === 'w16').length,
    heldIn: await heldIn(bytes),
    heldOutAll: await heldOut.all(bytes),
    heldOutBasic: await heldOut.basic(bytes),
  };
  console.log(JSON.stringify(row));
  return row;
}

if (!caseOption('split')) {
  await judged('A8W8', []);
  await judged('every weight at 16 bits, activations at 8', units.w16);
  await judged('every activation at 16 bits, weights at 8', units.act16);
  await judged('every activation and weight at 16 bits', everything);
}

// split=out: each unit's own cost judged on the held-out lines (16–31, 'all') instead; order=ranked: the units in
// the order of their held-in costs as stored in bench/results/recognizer-leave-one-in.json.
const costJudge = caseOption('split') === 'out' ? heldOut.all : heldIn;
const inOrder =
  caseOption('order') === 'ranked'
    ? (
        JSON.parse(fs.readFileSync('bench/results/recognizer-leave-one-in.json', 'utf8')).units as {
          kind: string;
          names: string[];
        }[]
      )
        .map((c) => everything.find((u) => u.kind === c.kind && u.names.join() === c.names.join()))
        .filter((u): u is PrecisionUnit => u !== undefined)
    : everything;
const count = Number(caseOption('units') ?? everything.length);
const allWide = (await costJudge(bytesOf(everything))).kl;
const costs: { kind: string; names: readonly string[]; cost: number; lines: string; cer: number }[] = [];
for (const u of inOrder.slice(0, count)) {
  const j = await costJudge(bytesOf(everything.filter((v) => v !== u)));
  costs.push({ kind: u.kind, names: u.names, cost: +(j.kl - allWide).toFixed(4), lines: j.linesMatching, cer: j.cer });
}
costs.sort((a, b) => b.cost - a.cost);
if (costs.length) console.log(JSON.stringify({ allWideKl: allWide, costs }));

const ranked = costs.map((c) => everything.find((u) => u.kind === c.kind && u.names.join() === c.names.join())!);
for (const spec of caseOption('top')?.split(',') ?? []) {
  const [a, w] = spec.split(':').map(Number);
  await judged(`the ${a} costliest activation groups and ${w} costliest weights at 16 bits`, [
    ...ranked.filter((u) => u.kind === 'act16').slice(0, a),
    ...ranked.filter((u) => u.kind === 'w16').slice(0, w),
  ]);
}
