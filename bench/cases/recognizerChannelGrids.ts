/**
 * Per-channel 8-bit activation grids on the PP-OCRv4 recognizer (issue 36 point 5): A8W8 per channel with the attention
 * rules (asymmetric activations unless `sym=1`), MinMSE ranges on lines 00–15, written by the product's quantizer; then
 * the Q/DQ pairs of chosen activations rewritten with one scale and zero point per channel (axis 1), from each
 * channel's extremes on lines 00–15 (with `clip=1` each channel's extremes kept within the tensor's MinMSE range).
 * Still 8 bits everywhere. Sets: none, `p2o.Add.43`, the six units costliest held out, every written-out HardSwish
 * input. Judged held in (00–15, 'all') and held out (16–31, 'all' and 'basic') by onnxruntime-node on the bytes, and
 * the KL with the model's output Softmax at 16 bits ("wide"). Every activation per channel is not a set: at 'all'
 * onnxruntime fuses a per-channel DQ → Mul → Q into QLinearMul and refuses the model ("Scale and Zero-point must be a
 * scalar"). Usage: recognizerChannelGrids.ts [sym=1] [clip=1] [method=MinMSE]   (JSON lines on stdout)
 */
import { decode, encode } from '../../src/core/onnx/index.ts';
import fs from 'node:fs';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod } from '../../src/core/quantize/config.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { exposeOnly } from '../../src/core/calibrate/run/expose.ts';
import { createSession } from '../../src/cli/runtime/ortNode.ts';
import { makeTensor } from '../../src/core/onnx/tensorData.ts';
import { intAttribute, type ModelProto, type NodeProto } from '../../src/core/onnx/model.ts';
import { precisionUnits, withUnits } from '../../src/core/search/mixedPrecision.ts';
import { createTextJudges, RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { caseClock, caseOption } from './caseArguments.ts';

const symmetric = caseOption('sym') === '1';
const clock = caseClock();
const model = decode(fs.readFileSync(RECOGNIZER_PATH));
const { calibration, evaluation } = textLineFiles();
const lines = calibration.map(textLineTensor);
const op = (n: NodeProto) => (n as unknown as { op_type: string }).op_type;
const config = withOptions(getPreset('A8W8'), {
  perChannel: true,
  enableNpuTransformer: true,
  calibrationMethod: (caseOption('method') ?? 'MinMSE') as CalibrationMethod,
  extraOptions: { ...getPreset('A8W8').extraOptions, ActivationSymmetric: symmetric },
});
const { ranges } = await calibrateOnTensors(model, lines, { config });
const q = quantizeModel(model, ranges, config);
const outputSoftmax = precisionUnits(q, config).act16.filter((u) => u.names.includes('softmax_11.tmp_0'));
const wideQ = quantizeModel(model, ranges, withUnits(config, outputSoftmax));
const readers = (t: string) =>
  model
    .graph!.node.filter((n) => n.input.includes(t))
    .map(op)
    .sort()
    .join();
const produced = new Set(model.graph!.node.flatMap((n) => n.output));
const quantizedActs = [...q.plan.activations.keys()].filter((t) => produced.has(t));
// Per-channel extremes of every 4-D quantized activation on lines 00-15 (float model).
const probe = await createSession(
  encode(
    exposeOnly(
      model,
      quantizedActs.filter((t) => t !== 'x'),
    ),
  ),
  0,
  'basic',
);
const lo = new Map<string, Float64Array>(),
  hi = new Map<string, Float64Array>();
for (const x of lines) {
  const out = await probe.run({ x });
  for (const [t, v] of Object.entries(out)) {
    if (v.dims.length !== 4) continue;
    const [, C, H, W] = v.dims as number[];
    const d = v.data as Float32Array;
    if (!lo.has(t)) {
      lo.set(t, new Float64Array(C).fill(Infinity));
      hi.set(t, new Float64Array(C).fill(-Infinity));
    }
    const l = lo.get(t)!,
      h = hi.get(t)!;
    for (let c = 0; c < C; c++)
      for (let k = c * H * W; k < (c + 1) * H * W; k++) {
        if (d[k] < l[c]) l[c] = d[k];
        if (d[k] > h[c]) h[c] = d[k];
      }
  }
}
function perChannel(source: ModelProto, tensors: readonly string[]): Uint8Array {
  const m = decode(encode(source));
  const g = m.graph!;
  const inits = new Map(g.initializer.map((t) => [t.name ?? '', t]));
  let changed = 0;
  for (const t of tensors) {
    const l = lo.get(t),
      h = hi.get(t);
    if (!l || !h) continue;
    for (const qn of g.node.filter((n) => op(n) === 'QuantizeLinear' && n.input[0] === t)) {
      const zpType = inits.get(qn.input[2])!.data_type!;
      const C = l.length;
      const scale = new Float32Array(C),
        zp = new Int8Array(C);
      for (let c = 0; c < C; c++) {
        const r = ranges.get(t)!;
        const clip = caseOption('clip') === '1';
        const mn = Math.min(clip ? Math.max(l[c], r.min) : l[c], 0),
          mx = Math.max(clip ? Math.min(h[c], r.max) : h[c], 0);
        if (symmetric) {
          scale[c] = Math.max(-mn, mx) / 127 || 1e-8;
          zp[c] = 0;
        } else {
          scale[c] = (mx - mn) / 255 || 1e-8;
          zp[c] = Math.max(-128, Math.min(127, Math.round(-128 - mn / scale[c])));
        }
      }
      const sName = `${t}_pc_scale`,
        zName = `${t}_pc_zero_point`;
      g.initializer.push(makeTensor(sName, 1, [C], scale), makeTensor(zName, zpType, [C], zp));
      const dqs = g.node.filter((n) => op(n) === 'DequantizeLinear' && n.input[0] === qn.output[0]);
      for (const n of [qn, ...dqs]) {
        n.input[1] = sName;
        n.input[2] = zName;
        n.attribute = [...n.attribute.filter((a) => a.name !== 'axis'), intAttribute('axis', 1)];
      }
      changed++;
    }
  }
  console.error(`per-channel grids on ${changed} Q/DQ pairs`);
  return encode(m);
}
const floatBytes = encode(model);
const { heldIn, heldOut } = await createTextJudges(floatBytes, { calibration, evaluation });
const hswish = quantizedActs.filter((t) => readers(t) === 'Add,Mul');
const sets: Record<string, string[]> = {
  none: [],
  'p2o.Add.43': ['p2o.Add.43'],
  'the 6 costliest held out (43, stem, 47, 27, 3, 11)': [
    'p2o.Add.43',
    'batch_norm_2.tmp_2',
    'p2o.Add.47',
    'p2o.Add.27',
    'p2o.Add.3',
    'p2o.Add.11',
  ],
  [`every written-out HardSwish input (${hswish.length})`]: hswish,
};
for (const [label, tensors] of Object.entries(sets)) {
  const bytes = perChannel(q.model, tensors);
  const wide = perChannel(wideQ.model, tensors);
  console.log(
    JSON.stringify({
      label: `${label}${caseOption('clip') === '1' ? ', each channel within the MinMSE range' : ''}`,
      symmetric,
      heldIn: await heldIn(bytes),
      heldInKlOutputWide: (await heldIn(wide)).kl,
      heldOutAll: await heldOut.all(bytes),
      heldOutBasic: await heldOut.basic(bytes),
      heldOutKlOutputWide: (await heldOut.all(wide)).kl,
      ...clock(),
    }),
  );
}
