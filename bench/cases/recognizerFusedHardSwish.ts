/**
 * The PP-OCRv4 recognizer at 8 bits with each Conv fused with the HardSwish after it (issue 36 point 5, route (d)):
 * PP-LCNetV3 writes Conv → scalar affine (Mul, Add) → HardSwish (written out) → scalar affine → next Conv, and the
 * product puts a Q/DQ pair on the HardSwish input (the first affine's output, e.g. `p2o.Add.43`, the costliest
 * 8-bit tensor). An NPU that runs Conv + activation as one op (as Quark's RemoveQDQConvRelu/Clip/LeakyRelu/PRelu do
 * for the ReLU family) rounds only the fused op's output: here the pair at each such HardSwish input is taken out
 * of the written model, so the Conv reads its 8-bit input and weights, and the first rounding after it is at the
 * HardSwish region's output. Every other tensor stays at 8 bits. Quantized by the product (A8W8 per channel with
 * the attention rules, symmetric unless `sym=0`, or `preset=XINT8`), MinMSE ranges on lines 00–15 unless
 * `method=`; judged held in (00–15, 'all'), held out (16–31, 'all' and 'basic'), and the held-out KL with the output
 * Softmax at 16 bits ("wide"). Sets: none; every HardSwish input produced from a Conv through element-wise nodes, without rounding, and
 * clipped to the pair's range (a float Clip, topologically first: onnxruntime sorts nodes as it loads).
 * Usage: recognizerFusedHardSwish.ts [sym=0] [preset=A8W8|XINT8] [method=MinMSE]   (JSON lines on stdout)
 */
import fs from 'node:fs';
import os from 'node:os';
import { decode, encode } from '../../src/core/onnx/index.ts';
import type { ModelProto, NodeProto } from '../../src/core/onnx/model.ts';
import { makeTensor, readTensor, readTensorAsFloat32 } from '../../src/core/onnx/tensorData.ts';
import { quantizeModel } from '../../src/core/quantize/quantizeModel.ts';
import { getPreset } from '../../src/core/quantize/presets.ts';
import { withOptions, type CalibrationMethod } from '../../src/core/quantize/config.ts';
import { calibrateOnTensors } from '../../src/cli/calibration/calibrateOnImages.ts';
import { precisionUnits, withUnits } from '../../src/core/search/mixedPrecision.ts';
import { createTextJudges, RECOGNIZER_PATH, textLineFiles, textLineTensor } from './recognizerSetup.ts';
import { caseClock, caseOption } from './caseArguments.ts';

const symmetric = caseOption('sym') !== '0';
const presetName = caseOption('preset') ?? 'A8W8';
const method = (caseOption('method') ?? 'MinMSE') as CalibrationMethod;
const clock = caseClock();
const model = decode(fs.readFileSync(RECOGNIZER_PATH));
const { calibration, evaluation } = textLineFiles();
const preset = getPreset(presetName as Parameters<typeof getPreset>[0]);
const config = withOptions(preset, {
  perChannel: true,
  enableNpuTransformer: true,
  calibrationMethod: method,
  extraOptions: { ...preset.extraOptions, ActivationSymmetric: symmetric },
});
const { ranges } = await calibrateOnTensors(model, calibration.map(textLineTensor), { config });
const q = quantizeModel(model, ranges, config);
const outputSoftmax = precisionUnits(q, config).act16.filter((u) => u.names.includes('softmax_11.tmp_0'));
const wideQ = quantizeModel(model, ranges, withUnits(config, outputSoftmax));

const op = (n: NodeProto) => n.op_type ?? '';
const nodes = model.graph!.node;
const producer = new Map<string, NodeProto>();
for (const n of nodes) for (const o of n.output) producer.set(o, n);
const readers = (t: string) =>
  nodes
    .filter((n) => n.input.includes(t))
    .map(op)
    .sort()
    .join();
const ELEMENTWISE = new Set(['Add', 'Mul', 'Sub', 'Div', 'BatchNormalization']);
/** The Conv a tensor comes from through element-wise nodes with constant other operands, if any. */
function convBehind(t: string): string | undefined {
  for (let n = producer.get(t); n;) {
    if (op(n) === 'Conv') return n.output[0];
    if (!ELEMENTWISE.has(op(n))) return undefined;
    const computed = n.input.filter((i) => producer.has(i) && op(producer.get(i)!) !== 'Constant');
    if (computed.length !== 1) return undefined;
    n = producer.get(computed[0]);
  }
  return undefined;
}
const hardSwishInputs = [...q.plan.activations.keys()].filter((t) => readers(t) === 'Add,Mul' && convBehind(t));

/**
 * The written model with the Q/DQ pairs on `tensors` taken out: their readers read the float tensor, or with `clip`
 * the tensor clipped to the pair's 8-bit range (float Clip: the range without the rounding).
 */
function withoutPairs(source: ModelProto, tensors: readonly string[], clip = false): Uint8Array {
  const m = decode(encode(source));
  const g = m.graph!;
  const inits = new Map(g.initializer.map((t) => [t.name ?? '', t]));
  const drop = new Set<NodeProto>();
  const added: NodeProto[] = [];
  for (const t of tensors)
    for (const qn of g.node.filter((n) => op(n) === 'QuantizeLinear' && n.input[0] === t)) {
      drop.add(qn);
      let read = t;
      if (clip) {
        const scale = readTensorAsFloat32(inits.get(qn.input[1])!)[0];
        const zp = Number(readTensor(inits.get(qn.input[2])!)[0]);
        const [qmin, qmax] = inits.get(qn.input[2])!.data_type === 2 ? [0, 255] : [-128, 127];
        const lo = `${t}_clip_min`,
          hi = `${t}_clip_max`;
        g.initializer.push(
          makeTensor(lo, 1, [], new Float32Array([scale * (qmin - zp)])),
          makeTensor(hi, 1, [], new Float32Array([scale * (qmax - zp)])),
        );
        read = `${t}_clipped`;
        added.push({ ...qn, op_type: 'Clip', name: `${t}_clip`, input: [t, lo, hi], output: [read], attribute: [] });
      }
      for (const dq of g.node.filter((n) => op(n) === 'DequantizeLinear' && n.input[0] === qn.output[0])) {
        drop.add(dq);
        for (const r of g.node) r.input = r.input.map((i) => (i === dq.output[0] ? read : i));
      }
    }
  g.node = [...added, ...g.node.filter((n) => !drop.has(n))];
  return encode(m);
}

const floatBytes = encode(model);
const { heldIn, heldOut } = await createTextJudges(floatBytes, { calibration, evaluation });
const sets: Record<string, string[]> = {
  none: [],
  [`every HardSwish input right after a Conv (${hardSwishInputs.length})`]: hardSwishInputs,
};
for (const [name, tensors] of Object.entries(sets))
  for (const clip of tensors.length ? [false, true] : [false]) {
    const label = clip ? `${name}, each clipped to its 8-bit range` : name;
    const load = os.loadavg()[0];
    const bytes = withoutPairs(q.model, tensors, clip);
    console.log(
      JSON.stringify({
        label,
        preset: presetName,
        symmetric,
        method,
        heldIn: await heldIn(bytes),
        heldOutAll: await heldOut.all(bytes),
        heldOutBasic: await heldOut.basic(bytes),
        heldOutKlOutputWide: (await heldOut.all(withoutPairs(wideQ.model, tensors, clip))).kl,
        ...clock(),
        loadAverage: +load.toFixed(1),
      }),
    );
  }
