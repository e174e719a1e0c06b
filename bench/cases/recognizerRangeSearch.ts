/**
 * A greedy joint range search on the PP-OCRv4 recognizer (issue 36 point 5), every tensor at 8 bits: A8W8 per channel
 * with the attention rules (symmetric activations, or asymmetric with `sym=0`), ranges by `method` (MinMSE unless
 * given) calibrated on text lines 00–15; then the `k` costliest activation groups (the order of
 * bench/results/recognizer-leave-one-in.json) one at a time, each given the range among MinMSE, Percentile and 1, 0.9,
 * 0.8, 0.7, 0.6 × MinMax (and, for a written-out HardSwish's input, MinMax with its lower end raised to −3, where
 * HardSwish is 0) that gives the lowest held-in mean per-step KL with the earlier choices already applied, so the
 * choices are judged together. The search's KL is taken with the model's output Softmax (softmax_11.tmp_0, the
 * CTC class probabilities, on a fixed [0, 1] grid that no range changes) at 16 bits (`obj=wide`, the default; `obj=kl`
 * keeps it at 8): its 8-bit grid floors small probabilities to 0 and makes the KL jump with any change upstream. Every
 * model judged is all 8-bit; held in (lines 00–15) and held out (16–31) at onnxruntime's 'all' and 'basic' after
 * every 4 groups, by onnxruntime-node on the written bytes. JSON lines on stdout.
 * Usage: recognizerRangeSearch.ts [sym=0|1] [k=16] [method=MinMSE] [obj=wide|kl]
 */
import { decode, encode } from '../../src/core/onnx/index.ts';
import fs from 'node:fs';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod } from '../../src/core/quantize/config.ts';
import type { TensorRange } from '../../src/core/quantize/plan.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { precisionUnits, withUnits } from '../../src/core/search/mixedPrecision.ts';
import { createTextJudges, RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { caseClock, caseOption } from './caseArguments.ts';

const symmetric = caseOption('sym') !== '0';
const groupsSearched = Number(caseOption('k') ?? 16);
const baseMethod = (caseOption('method') ?? 'MinMSE') as CalibrationMethod;
const wideOutput = (caseOption('obj') ?? 'wide') === 'wide';
const clock = caseClock();

const model = decode(fs.readFileSync(RECOGNIZER_PATH));
const { calibration, evaluation } = textLineFiles();
const floatBytes = encode(model);
const { heldIn, heldOut } = await createTextJudges(floatBytes, { calibration, evaluation });
const configFor = (method: CalibrationMethod) =>
  withOptions(getPreset('A8W8'), {
    perChannel: true,
    enableNpuTransformer: true,
    calibrationMethod: method,
    extraOptions: { ...getPreset('A8W8').extraOptions, ActivationSymmetric: symmetric },
  });
const config = configFor(baseMethod);
const lines = calibration.map(textLineTensor);
const rangesBy = new Map<CalibrationMethod, Map<string, TensorRange>>();
for (const method of ['MinMSE', 'MinMax', 'Percentile'] as CalibrationMethod[])
  rangesBy.set(method, (await calibrateOnTensors(model, lines, { config: configFor(method) })).ranges);
const base = new Map(rangesBy.get(baseMethod)!);

const units = precisionUnits(quantizeModel(model, base, config), config);
const outputSoftmax = units.act16.filter((u) => model.graph!.output.some((o) => u.names.includes(o.name ?? '')));
const searchConfig = wideOutput ? withUnits(config, outputSoftmax) : config;
const ranked = (
  JSON.parse(fs.readFileSync('bench/results/recognizer-leave-one-in.json', 'utf8')).units as {
    kind: string;
    names: string[];
  }[]
)
  .filter((u) => u.kind === 'act16')
  .map((u) => units.act16.find((g) => g.names.join() === u.names.join())?.names)
  .filter((g): g is readonly string[] => g !== undefined && !outputSoftmax.some((u) => u.names === g));

const readers = (t: string) =>
  model
    .graph!.node.filter((n) => n.input.includes(t))
    .map((n) => (n as unknown as { op_type: string }).op_type)
    .sort()
    .join();
/** HardSwish, or written out: x · clip(x + 3, 0, 6) / 6 reads x in an Add and a Mul. */
const feedsHardSwish = (t: string) => ['HardSwish', 'Add,Mul'].includes(readers(t));

type Candidate = { label: string; range: (t: string) => TensorRange | undefined };
const ofMinMax =
  (factor: number, floor?: number): Candidate['range'] =>
  (t) => {
    const r = rangesBy.get('MinMax')!.get(t);
    if (!r) return undefined;
    return { min: (floor !== undefined ? Math.max(r.min, floor) : r.min) * factor, max: r.max * factor };
  };
function candidates(group: readonly string[]): Candidate[] {
  const list: Candidate[] = [
    { label: 'MinMSE', range: (t) => rangesBy.get('MinMSE')!.get(t) },
    { label: 'Percentile', range: (t) => rangesBy.get('Percentile')!.get(t) },
    ...[1, 0.9, 0.8, 0.7, 0.6].map((f) => ({ label: `${f} × MinMax`, range: ofMinMax(f) })),
  ];
  if (group.every(feedsHardSwish) && group.some((t) => (rangesBy.get('MinMax')!.get(t)?.min ?? 0) < -3))
    list.push(...[1, 0.8, 0.6].map((f) => ({ label: `${f} × MinMax, low end −3`, range: ofMinMax(f, -3) })));
  return list;
}
const withRange = (ranges: Map<string, TensorRange>, group: readonly string[], c: Candidate) => {
  const next = new Map(ranges);
  for (const t of group) {
    const r = c.range(t);
    if (r) next.set(t, r);
  }
  return next;
};
const searchKl = async (ranges: Map<string, TensorRange>) =>
  (await heldIn(encode(quantizeModel(model, ranges, searchConfig).model))).kl;

async function judged(label: string, ranges: Map<string, TensorRange>) {
  const bytes = encode(quantizeModel(model, ranges, config).model);
  console.log(
    JSON.stringify({
      label,
      symmetric,
      searchKl: await searchKl(ranges),
      heldIn: await heldIn(bytes),
      heldOutAll: await heldOut.all(bytes),
      heldOutBasic: await heldOut.basic(bytes),
      ...clock(),
    }),
  );
}

await judged(`${baseMethod}, no range chosen`, base);
let current = base;
let currentKl = await searchKl(current);
const chosen: Record<string, string> = {};
for (const [i, group] of ranked.slice(0, groupsSearched).entries()) {
  const tried: Record<string, number> = {};
  let best: { label: string; kl: number; ranges: Map<string, TensorRange> } | undefined;
  for (const c of candidates(group)) {
    const next = withRange(current, group, c);
    const kl = await searchKl(next);
    tried[c.label] = kl;
    if (!best || kl < best.kl) best = { label: c.label, kl, ranges: next };
  }
  if (best && best.kl < currentKl) {
    current = best.ranges;
    currentKl = best.kl;
    chosen[group.join('+')] = best.label;
  }
  console.log(
    JSON.stringify({
      group,
      readers: readers(group[0]),
      chosen: chosen[group.join('+')],
      currentKl,
      tried,
      ...clock(),
    }),
  );
  if ((i + 1) % 4 === 0 || i + 1 === groupsSearched)
    await judged(`after ${i + 1} groups (${JSON.stringify(chosen)})`, current);
}
